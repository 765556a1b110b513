/**
 * Purchase flow, part 1 (public notes 3.4; docs/stream-marketplace.md "Purchase flow") over the real REST shim and
 * GraphQL: payment rails, delivery transports, delivery capabilities (machine-agent auth, validation, expiry),
 * POST /purchases (pairing-token buyer, chunk selection, X25519 key, negotiation: payment_pending, or failed with
 * DELIVERY_NO_COMMON_TRANSPORT), GET /purchases/:id (buyer or seller agent only) and cancellation. Every refusal
 * leaves the rows and the audit log as they were.
 */
import { Wallet } from "ethers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { graphql } from "../../support/platform.js";
import { agentHeaders, api, expectMarketsError, expectOk, pairAgent, PLATFORM_START_TIMEOUT_MS, prismaOf, startMarketsPlatform, type MarketsPlatform } from "../../markets/helpers.js";
import { sellerHeaders } from "../helpers.js";
import { buyerCall, createSeller, createMarket, LIBP2P_CAPABILITY, purchaseBody, purchaseKinds, purchaseState, putCapabilities, TCP_CAPABILITY, type Market } from "./purchases-helpers.js";
import { createListing } from "../helpers.js";

describe("purchase flow: rails, capabilities, create, read", () => {
  let p: MarketsPlatform;
  let m: Market;

  beforeAll(async () => {
    p = await startMarketsPlatform();
    m = await createMarket(p, 0, 1, p.demo.payments!.agents[0].privateKey);
  }, PLATFORM_START_TIMEOUT_MS);
  afterAll(async () => {
    await p?.close();
  });

  const create = (body: unknown, token = m.buyer.token) => api(p, "POST", "/purchases", body, agentHeaders(token));
  const capabilityRow = () => prismaOf(p).streamDeliveryCapability.findUnique({ where: { machineId: m.seller.machineId } });

  it("GET /payment-rails: transfer with chain, token and payTo; x402 with network and asset (REST and GraphQL)", async () => {
    const payments = p.demo.payments!;
    const { items } = expectOk(await api(p, "GET", "/payment-rails"));
    expect(items.map((r: any) => r.type)).toEqual(["transfer", "x402"]);
    expect(items[0]).toMatchObject({ chains: [{ chain: "peaq", chainId: String(p.demo.chainId) }], token: { address: payments.stablecoin.address, decimals: 6 }, payTo: payments.payee.address });
    expect(items[1]).toMatchObject({ x402Version: 1, scheme: "exact", network: "peaq", asset: payments.stablecoin.address, payTo: payments.payee.address });
    const gql = await graphql(p.graphql, `{ paymentRails { ... on TransferPaymentRail { type chains { chain chainId token { address decimals symbol } payTo confirmations } token { address decimals symbol } payTo proof }
      ... on X402PaymentRail { type x402Version scheme network asset payTo extra { name version } } } }`);
    expect(gql.body.errors).toBeUndefined();
    expect(gql.body.data.paymentRails).toEqual(items);
  });

  it("GET /delivery-transports: libp2p and tcp, p2p, the chunk protocol and frame encoding", async () => {
    const { items } = expectOk(await api(p, "GET", "/delivery-transports"));
    expect(items.map((t: any) => [t.mode, t.transportId])).toEqual([["p2p", "libp2p"], ["p2p", "tcp"]]);
    for (const t of items) expect(t).toMatchObject({ protocols: ["/peaqos/stream/chunk/1.0.0"], encodings: ["peaqos-json-frame-v1"] });
  });

  it("PUT delivery-capabilities: 201 then 200, expiresAt default and given; the audit event", async () => {
    const again = expectOk(await putCapabilities(p, m.seller, { capabilities: [TCP_CAPABILITY, LIBP2P_CAPABILITY], resourceTypes: ["stream.listing"] }), 200).item;
    expect(again).toMatchObject({ machineId: m.seller.machineId, agentId: m.seller.agentId, resourceTypes: ["stream.listing"] });
    expect(again.capabilities.map((c: any) => c.transportId)).toEqual(["tcp", "libp2p"]);
    const expiresAt = new Date(Date.now() + 600_000).toISOString();
    expect(expectOk(await putCapabilities(p, m.seller, { capabilities: [TCP_CAPABILITY], expiresAt, agentId: m.seller.agentId, agentToken: m.seller.agentToken }, {})).item.expiresAt).toBe(expiresAt);
    const fresh = await createSeller(p, 2);
    expectOk(await putCapabilities(p, fresh, { capabilities: [LIBP2P_CAPABILITY] }), 201);
    const kinds = await prismaOf(p).marketAuditEvent.count({ where: { kind: "stream.delivery-capabilities.updated", machineId: m.seller.machineId } });
    expect(kinds).toBe(3);
  });

  it("PUT delivery-capabilities refusals: auth codes and DELIVERY_CAPABILITIES_INVALID, nothing changed", async () => {
    const before = await capabilityRow();
    const good = { capabilities: [TCP_CAPABILITY] };
    expectMarketsError(await putCapabilities(p, m.seller, good, {}), 401, "AGENT_AUTH_REQUIRED");
    expectMarketsError(await putCapabilities(p, m.seller, good, { ...sellerHeaders(m.seller), "x-machine-agent-token": `mat_${"A".repeat(43)}` }), 401, "AGENT_AUTH_INVALID");
    const bad = (capabilities: unknown, extra: Record<string, unknown> = {}) => putCapabilities(p, m.seller, { capabilities, ...extra });
    for (const answer of [
      await bad([]),
      await bad([{ ...TCP_CAPABILITY, transportId: "carrier-pigeon" }]),
      await bad([{ ...TCP_CAPABILITY, protocols: ["/other/1.0.0"] }]),
      await bad([{ ...TCP_CAPABILITY, encoding: "cbor" }]),
      await bad([{ ...TCP_CAPABILITY, params: { addresses: ["127.0.0.1:99999"] } }]),
      await bad([{ ...TCP_CAPABILITY, params: { addresses: [] } }]),
      await bad([{ ...LIBP2P_CAPABILITY, params: { addresses: ["not a multiaddr"] } }]),
      await bad([TCP_CAPABILITY, TCP_CAPABILITY]),
      await bad([TCP_CAPABILITY], { expiresAt: new Date(Date.now() - 1000).toISOString() }),
      await bad([TCP_CAPABILITY], { expiresAt: new Date(Date.now() + 2 * 86_400_000).toISOString() }),
      await bad([TCP_CAPABILITY], { resourceTypes: ["video"] }),
    ]) {
      expectMarketsError(answer, 400, "DELIVERY_CAPABILITIES_INVALID");
    }
    expect(await capabilityRow()).toEqual(before);
  });

  it("POST /purchases: payment_pending with the negotiated transport, the selection's price and audit events", async () => {
    const chunkIds = [m.chunks[2].manifest.chunkId, m.chunks[0].manifest.chunkId];
    const item = expectOk(await create(purchaseBody(m, { chunkIds })), 201).item;
    expect(item).toMatchObject({
      status: "payment_pending",
      resource: { type: "stream.listing", listingId: m.listingId, selection: { chunkIds: [m.chunks[0].manifest.chunkId, m.chunks[2].manifest.chunkId] } },
      machineId: m.seller.machineId,
      buyer: { id: m.buyer.did, publicKey: { type: "x25519", publicKeyHex: m.buyer.publicKeyHex } },
      price: { amount: "0.02", currency: "USD" },
      delivery: { mode: "p2p", transportId: "tcp", protocols: ["/peaqos/stream/chunk/1.0.0"], encoding: "peaqos-json-frame-v1", peer: { addresses: ["127.0.0.1:47001"] } },
      failure: null,
    });
    expect(item.id).toMatch(/^spur_[a-z2-7]{16}$/);
    expect(await purchaseKinds(p, item.id)).toEqual(["stream.purchase.created", "stream.purchase.payment-pending"]);
    const all = expectOk(await create(purchaseBody(m)), 201).item;
    expect(all.resource.selection.chunkIds).toHaveLength(3);
    expect(all.price.amount).toBe("0.02");
  });

  it("negotiation: preferred transport wins; none in common fails the purchase with DELIVERY_NO_COMMON_TRANSPORT", async () => {
    expectOk(await putCapabilities(p, m.seller, { capabilities: [TCP_CAPABILITY, LIBP2P_CAPABILITY] }));
    const both = [{ transportId: "tcp" }, { transportId: "libp2p" }];
    const preferred = expectOk(await create(purchaseBody(m, { buyer: { deliveryCapabilities: both }, delivery: { acceptableModes: ["p2p"], preferredTransports: ["libp2p"] } })), 201).item;
    expect(preferred.delivery).toMatchObject({ transportId: "libp2p", peer: { peerId: LIBP2P_CAPABILITY.params.peerId } });
    const none = expectOk(await create(purchaseBody(m, { buyer: { deliveryCapabilities: [{ transportId: "webrtc" }] } })), 201).item;
    expect(none).toMatchObject({ status: "failed", delivery: null, failure: { code: "DELIVERY_NO_COMMON_TRANSPORT" } });
    expect(await purchaseKinds(p, none.id)).toEqual(["stream.purchase.created", "stream.purchase.failed"]);
    const s3 = expectOk(await create(purchaseBody(m, { delivery: { acceptableModes: ["s3"] } })), 201).item;
    expect(s3.status).toBe("failed");
    // A seller without capabilities (or whose announcement expired) has nothing in common with anyone.
    const quiet = await createSeller(p, 3);
    const listingId = (await createListing(p, quiet, 1, { price: { amount: "0.02", currency: "USD" } })).listing.id;
    expect(expectOk(await create({ ...purchaseBody(m), resource: { type: "stream.listing", listingId } }), 201).item.status).toBe("failed");
  });

  it("POST /purchases refusals: auth, listing, chunks, key, shape; nothing written", async () => {
    const count = () => prismaOf(p).streamPurchase.count();
    const before = await count();
    expectMarketsError(await api(p, "POST", "/purchases", purchaseBody(m)), 401, "AGENT_AUTH_REQUIRED");
    expectMarketsError(await create(purchaseBody(m), "x.y.z"), 401, "AGENT_AUTH_INVALID");
    expectMarketsError(await create({ ...purchaseBody(m), resource: { type: "stream.listing", listingId: "slst_missing" } }), 404, "NOT_FOUND");
    expectMarketsError(await create({ ...purchaseBody(m), resource: { type: "stream.bundle", listingId: m.listingId } }), 400, "VALIDATION_ERROR");
    expectMarketsError(await create(purchaseBody(m, { chunkIds: ["sha256:" + "0".repeat(64)] })), 400, "PURCHASE_CHUNKS_INVALID");
    expectMarketsError(await create(purchaseBody(m, { chunkIds: [m.chunks[0].manifest.chunkId, m.chunks[0].manifest.chunkId] })), 400, "PURCHASE_CHUNKS_INVALID");
    expectMarketsError(await create(purchaseBody(m, { chunkIds: [] })), 400, "PURCHASE_CHUNKS_INVALID");
    for (const publicKeyHex of ["00".repeat(32), "ab".repeat(31), "zz".repeat(32)]) {
      expectMarketsError(await create(purchaseBody(m, { buyer: { publicKey: { type: "x25519", publicKeyHex } } })), 400, "VALIDATION_ERROR");
    }
    expectMarketsError(await create(purchaseBody(m, { buyer: { publicKey: { type: "ed25519", publicKeyHex: m.buyer.publicKeyHex } } })), 400, "VALIDATION_ERROR");
    expectMarketsError(await create(purchaseBody(m, { buyer: { id: "did:pkh:eip155:1:0x0000000000000000000000000000000000000001" } })), 400, "VALIDATION_ERROR");
    expectMarketsError(await api(p, "POST", "/purchases", "[1]", agentHeaders(m.buyer.token)), 400, "VALIDATION_ERROR");
    await prismaOf(p).streamListing.update({ where: { id: m.listingId }, data: { status: "inactive" } });
    expectMarketsError(await create(purchaseBody(m)), 409, "PURCHASE_LISTING_INACTIVE");
    await prismaOf(p).streamListing.update({ where: { id: m.listingId }, data: { status: "active" } });
    expect(await count()).toBe(before);
  });

  it("GET /purchases/:id: the buyer and the seller's agent; another pairing NOT_FOUND; no credentials AGENT_AUTH_REQUIRED", async () => {
    const created = expectOk(await create(purchaseBody(m)), 201).item;
    expect(created).not.toHaveProperty("paymentDueAt");
    // GET adds the payment deadline: createdAt + STREAM_PURCHASE_PAYMENT_TTL_SECONDS (default 3600), as the last member.
    const item = { ...created, paymentDueAt: new Date(Date.parse(created.createdAt) + 3600_000).toISOString() };
    expect(expectOk(await buyerCall(p, m, "GET", `/purchases/${item.id}`)).item).toEqual(item);
    expect(Object.keys(expectOk(await buyerCall(p, m, "GET", `/purchases/${item.id}`)).item).at(-1)).toBe("paymentDueAt");
    expect(expectOk(await api(p, "GET", `/purchases/${item.id}`, undefined, sellerHeaders(m.seller))).item).toEqual(item);
    const other = await pairAgent(p, m.buyer.machineId, new Wallet(p.demo.payments!.agents[1].privateKey));
    expectMarketsError(await api(p, "GET", `/purchases/${item.id}`, undefined, agentHeaders(other.pairingToken)), 404, "NOT_FOUND");
    expectMarketsError(await api(p, "GET", `/purchases/${item.id}`), 401, "AGENT_AUTH_REQUIRED");
    expectMarketsError(await buyerCall(p, m, "GET", "/purchases/spur_aaaaaaaaaaaaaaaa"), 404, "NOT_FOUND");
    const gql = await graphql(p.graphql, `query ($id: String!, $t: String) { purchase(purchaseId: $id, pairingToken: $t) { id status createdAt paymentDueAt } }`, { id: item.id, t: m.buyer.token });
    expect(gql.body.data.purchase).toEqual({ id: item.id, status: item.status.toUpperCase(), createdAt: item.createdAt, paymentDueAt: item.paymentDueAt });
  });

  it("purchase.cancelled by the buyer before payment; then every later step is PURCHASE_STATE_INVALID, state unchanged", async () => {
    const item = expectOk(await create(purchaseBody(m)), 201).item;
    const event = (type: string) => buyerCall(p, m, "POST", `/purchases/${item.id}/events`, { type, actor: { type: "buyer", id: m.buyer.did }, data: {} });
    const before = await purchaseState(p, item.id);
    expectMarketsError(await event("buyer.connected"), 409, "PURCHASE_STATE_INVALID");
    expectMarketsError(await buyerCall(p, m, "GET", `/purchases/${item.id}/delivery`), 409, "PURCHASE_STATE_INVALID");
    expect(await purchaseState(p, item.id)).toEqual(before);
    expect(expectOk(await event("purchase.cancelled"), 201).item).toMatchObject({ type: "purchase.cancelled", purchaseStatus: "cancelled" });
    const cancelled = await purchaseState(p, item.id);
    expectMarketsError(await event("purchase.cancelled"), 409, "PURCHASE_STATE_INVALID");
    expectMarketsError(await buyerCall(p, m, "POST", `/purchases/${item.id}/payment-intent`, { rail: { type: "transfer" } }), 409, "PURCHASE_STATE_INVALID");
    expect(await purchaseState(p, item.id)).toEqual(cancelled);
  });
});
