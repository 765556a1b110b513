/**
 * Purchase flow, part 3 (public notes 3.4): after paid, the seller prepares access for exactly the bought chunks to
 * the buyer's key; GET /purchases/:id/delivery answers the p2p session descriptor (transport, protocols, the seller's
 * addresses, a fresh short-lived handoff) with the bought chunks' access only, which the buyer opens with its X25519
 * key; the seller's delivery server verifies the handoff (expiry on the platform clock); events move the purchase
 * to completed, and refused events leave it as it was.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openBuyerAccess } from "../../../subgraphs/markets/stream/index.js";
import { offsetClock } from "../../support/clock.js";
import { graphql } from "../../support/platform.js";
import { api, expectMarketsError, expectOk, PLATFORM_START_TIMEOUT_MS, prismaOf, startMarketsPlatform, type MarketsPlatform } from "../../markets/helpers.js";
import { sellerHeaders } from "../helpers.js";
import { accessFor, buyerCall, chainOf, createMarket, createSeller, purchaseBody, purchaseKinds, purchaseState, type Market } from "./purchases-helpers.js";

describe("purchase flow: access, delivery descriptor, handoff, events", () => {
  let p: MarketsPlatform;
  let m: Market;
  let chain: ReturnType<typeof chainOf>;
  const clock = offsetClock();

  beforeAll(async () => {
    p = await startMarketsPlatform({}, { clock });
    m = await createMarket(p, 0, 1, p.demo.payments!.agents[0].privateKey);
    chain = chainOf(p);
  }, PLATFORM_START_TIMEOUT_MS);
  afterAll(async () => {
    chain?.provider.destroy();
    await p?.close();
  });

  const bought = () => [m.chunks[0].manifest.chunkId, m.chunks[2].manifest.chunkId];
  /** A purchase of chunks 0 and 2, paid by a real transfer. */
  async function paidPurchase() {
    const purchase = expectOk(await buyerCall(p, m, "POST", "/purchases", purchaseBody(m, { chunkIds: bought() })), 201).item;
    expectOk(await buyerCall(p, m, "POST", `/purchases/${purchase.id}/payment-intent`, { rail: "transfer" }));
    const txHash = await chain.transfer(m.buyer.wallet, chain.payments.payee.address, 20_000n);
    return expectOk(await buyerCall(p, m, "POST", `/purchases/${purchase.id}/payment-proof`, { rail: "transfer", transactionHash: txHash })).item;
  }
  const prepare = (id: string, items: unknown, headers: Record<string, string> = sellerHeaders(m.seller)) => api(p, "POST", `/purchases/${id}/prepare-access`, { items }, headers);
  const verify = (handoffToken: string, seller = m.seller) =>
    api(p, "POST", "/stream/delivery-sessions/handoff/verify", { machineId: seller.machineId, handoffToken }, sellerHeaders(seller));
  const event = (id: string, type: string, data: Record<string, unknown> = {}) =>
    buyerCall(p, m, "POST", `/purchases/${id}/events`, { type, actor: { type: "buyer", id: m.buyer.did }, data });

  it("prepare-access refusals: wrong chunks, wrong key or recipient, extra items, wrong agent; nothing written", async () => {
    const purchase = await paidPurchase();
    const before = await purchaseState(p, purchase.id);
    const all = m.chunks.map((c) => c.manifest.chunkId);
    expectMarketsError(await prepare(purchase.id, accessFor(m, all)), 400, "PURCHASE_ACCESS_MISMATCH");
    expectMarketsError(await prepare(purchase.id, accessFor(m, [bought()[0]])), 400, "PURCHASE_ACCESS_MISMATCH");
    expectMarketsError(await prepare(purchase.id, [...accessFor(m, [bought()[0]]), ...accessFor(m, [bought()[0]])]), 400, "PURCHASE_ACCESS_MISMATCH");
    const otherKey = Buffer.from(m.chunks[0].manifest.encryption.keyRecipients[0].publicKeyHex, "hex").toString("hex");
    expectMarketsError(await prepare(purchase.id, accessFor(m, bought(), m.buyer.did, otherKey)), 400, "PURCHASE_ACCESS_MISMATCH");
    expectMarketsError(await prepare(purchase.id, accessFor(m, bought(), "did:pkh:eip155:1:0x00000000000000000000000000000000000000aa")), 400, "PURCHASE_ACCESS_MISMATCH");
    expectMarketsError(await prepare(purchase.id, accessFor(m, bought()), {}), 401, "AGENT_AUTH_REQUIRED");
    const stranger = await createSeller(p, 2);
    expectMarketsError(await prepare(purchase.id, accessFor(m, bought()), sellerHeaders(stranger)), 401, "AGENT_AUTH_INVALID");
    // The body may exceed the 64 KiB of other markets routes (one entry per bought chunk), bounded at 8 MiB.
    const many = Array.from({ length: 400 }, () => accessFor(m, [bought()[0]])[0]);
    expect(Buffer.byteLength(JSON.stringify({ items: many }))).toBeGreaterThan(65_536);
    expectMarketsError(await prepare(purchase.id, many), 400, "PURCHASE_ACCESS_MISMATCH");
    const padded = await api(p, "POST", `/purchases/${purchase.id}/prepare-access`, { items: accessFor(m, bought()), padding: "x".repeat(8 * 1024 * 1024) }, sellerHeaders(m.seller));
    expectMarketsError(padded, 413, "PAYLOAD_TOO_LARGE");
    expect(await purchaseState(p, purchase.id)).toEqual(before);
  });

  it("delivery: the p2p descriptor with a fresh handoff and the bought chunks' access only; the buyer opens each key", async () => {
    const purchase = await paidPurchase();
    const early = expectOk(await buyerCall(p, m, "GET", `/purchases/${purchase.id}/delivery`));
    expect(early.access).toEqual([]);
    expect(early.delivery.status).toBe("requested");
    const prepared = expectOk(await prepare(purchase.id, accessFor(m, bought())));
    expect(prepared.deliverySession.status).toBe("ready");
    // Access uploaded for a chunk the buyer did not buy never reaches it.
    const body = expectOk(await buyerCall(p, m, "GET", `/purchases/${purchase.id}/delivery`));
    expect(Object.keys(body)).toEqual(["purchaseId", "status", "delivery", "access"]);
    expect(body.delivery).toMatchObject({
      mode: "p2p",
      transportId: "tcp",
      protocols: ["/peaqos/stream/chunk/1.0.0"],
      encoding: "peaqos-json-frame-v1",
      peer: { machineId: m.seller.machineId, addresses: ["127.0.0.1:47001"] },
      status: "ready",
      chunkIds: bought(),
    });
    expect(body.delivery.handoff.token).toMatch(/^shof_[A-Za-z0-9_-]{43}$/);
    const left = Date.parse(body.delivery.handoff.expiresAt) - clock.now();
    expect(left > 0 && left <= 300_000).toBe(true);
    expect(body.access.map((a: any) => a.chunkId)).toEqual(bought());
    for (const [i, access] of body.access.entries()) {
      const chunk = m.chunks.find((c) => c.manifest.chunkId === access.chunkId)!;
      expect(openBuyerAccess(access, chunk.manifest, m.buyer.secretKey, i)).toHaveLength(32);
    }
    const session = await prismaOf(p).streamDeliverySession.findFirst({ where: { purchaseId: purchase.id } });
    expect(Buffer.from(session!.handoffHash!).toString("hex")).not.toContain(Buffer.from(body.delivery.handoff.token).toString("hex"));
    expect(await purchaseKinds(p, purchase.id)).toContain("stream.purchase.access-prepared");
  });

  it("handoff verify: the seller's agent learns purchase, buyer and chunks; other machine, unknown, superseded, expired refused", async () => {
    const purchase = await paidPurchase();
    expectOk(await prepare(purchase.id, accessFor(m, bought())));
    const first = expectOk(await buyerCall(p, m, "GET", `/purchases/${purchase.id}/delivery`)).delivery.handoff.token;
    const item = expectOk(await verify(first)).item;
    expect(item).toMatchObject({ purchaseId: purchase.id, machineId: m.seller.machineId, buyerId: m.buyer.did, buyerPublicKeyHex: m.buyer.publicKeyHex, chunkIds: bought(), transportId: "tcp", purchaseStatus: "paid" });
    expect(expectOk(await verify(first)).item.purchaseId).toBe(purchase.id);
    const other = await createSeller(p, 3);
    expectMarketsError(await verify(first, other), 401, "STREAM_HANDOFF_INVALID");
    expectMarketsError(await verify(`shof_${"A".repeat(43)}`), 401, "STREAM_HANDOFF_INVALID");
    expectMarketsError(await verify("nonsense"), 401, "STREAM_HANDOFF_INVALID");
    expectMarketsError(await api(p, "POST", "/stream/delivery-sessions/handoff/verify", { machineId: m.seller.machineId, handoffToken: first }), 401, "AGENT_AUTH_REQUIRED");
    const second = expectOk(await buyerCall(p, m, "GET", `/purchases/${purchase.id}/delivery`)).delivery.handoff.token;
    expectMarketsError(await verify(first), 401, "STREAM_HANDOFF_INVALID");
    clock.offsetMs += 300_000;
    try {
      expectMarketsError(await verify(second), 401, "STREAM_HANDOFF_EXPIRED");
    } finally {
      clock.offsetMs -= 300_000;
    }
    expect(expectOk(await verify(second)).item.purchaseId).toBe(purchase.id);
  });

  it("events: connected -> delivering, acknowledged -> delivered, completed; refusals leave the purchase unchanged", async () => {
    const purchase = await paidPurchase();
    const at = () => purchaseState(p, purchase.id);
    let before = await at();
    expectMarketsError(await event(purchase.id, "delivery.acknowledged"), 409, "PURCHASE_STATE_INVALID");
    expectMarketsError(await event(purchase.id, "purchase.completed"), 409, "PURCHASE_STATE_INVALID");
    expectMarketsError(await event(purchase.id, "purchase.cancelled"), 409, "PURCHASE_STATE_INVALID");
    expectMarketsError(await event(purchase.id, "buyer.teleported"), 400, "VALIDATION_ERROR");
    expectMarketsError(await event(purchase.id, "buyer.connected", { transportId: "libp2p" }), 400, "VALIDATION_ERROR");
    expectMarketsError(await buyerCall(p, m, "POST", `/purchases/${purchase.id}/events`, { type: "buyer.connected", actor: { type: "buyer", id: "someone-else" }, data: {} }), 400, "VALIDATION_ERROR");
    expectMarketsError(await api(p, "POST", `/purchases/${purchase.id}/events`, { type: "buyer.connected", actor: { type: "seller", id: m.seller.agentId }, data: {} }, sellerHeaders(m.seller)), 400, "VALIDATION_ERROR");
    expect(await at()).toEqual(before);

    expect(expectOk(await event(purchase.id, "buyer.connected", { transportId: "tcp" }), 201).item).toMatchObject({ type: "buyer.connected", purchaseStatus: "delivering", actor: { type: "buyer", id: m.buyer.did } });
    expect(expectOk(await event(purchase.id, "buyer.connected"), 201).item.purchaseStatus).toBe("delivering");
    before = await at();
    // Access not prepared yet: the buyer cannot have the keys, so it cannot acknowledge the delivery.
    expectMarketsError(await event(purchase.id, "delivery.acknowledged"), 409, "PURCHASE_STATE_INVALID");
    expect(await at()).toEqual(before);
    expectOk(await prepare(purchase.id, accessFor(m, bought())));
    expect(expectOk(await event(purchase.id, "delivery.acknowledged", { chunkIds: bought() }), 201).item.purchaseStatus).toBe("delivered");
    expectMarketsError(await verify(expectOk(await buyerCall(p, m, "GET", `/purchases/${purchase.id}/delivery`)).delivery.handoff?.token ?? "none"), 401, "STREAM_HANDOFF_INVALID");
    const done = expectOk(await event(purchase.id, "purchase.completed"), 201).item;
    expect(done.purchaseStatus).toBe("completed");
    const row = await prismaOf(p).streamPurchase.findUnique({ where: { id: purchase.id } });
    expect(row!.completedAt).not.toBeNull();
    expect((await prismaOf(p).streamDeliverySession.findFirst({ where: { purchaseId: purchase.id } }))!.status).toBe("delivered");
    before = await at();
    expectMarketsError(await event(purchase.id, "delivery.failed"), 409, "PURCHASE_STATE_INVALID");
    expectMarketsError(await prepare(purchase.id, accessFor(m, bought())), 409, "PURCHASE_STATE_INVALID");
    expect(await at()).toEqual(before);
    expect(await purchaseKinds(p, purchase.id)).toEqual([
      "stream.purchase.created", "stream.purchase.payment-pending", "stream.purchase.payment-intent-created", "stream.purchase.paid",
      "stream.delivery-session.requested", "stream.purchase.delivering", "stream.purchase.event-recorded", "stream.purchase.access-prepared",
      "stream.purchase.delivered", "stream.purchase.completed",
    ]);
  });

  it("delivery.failed by the seller's agent while delivering: failed, the session too", async () => {
    const purchase = await paidPurchase();
    expectOk(await event(purchase.id, "buyer.connected"), 201);
    const failed = expectOk(await api(p, "POST", `/purchases/${purchase.id}/events`, { type: "delivery.failed", actor: { type: "seller", id: m.seller.agentId }, data: { reason: "disk" } }, sellerHeaders(m.seller)), 201).item;
    expect(failed.purchaseStatus).toBe("failed");
    expect((await prismaOf(p).streamDeliverySession.findFirst({ where: { purchaseId: purchase.id } }))!.status).toBe("failed");
    expectMarketsError(await buyerCall(p, m, "GET", `/purchases/${purchase.id}/delivery`), 409, "PURCHASE_STATE_INVALID");
  });

  it("GraphQL: the delivery side answers typed objects with UPPER_CASE statuses; REST has the same members in lowercase", async () => {
    const purchase = await paidPurchase();
    const agent = { agentId: m.seller.agentId, agentToken: m.seller.agentToken };
    const SESSION = "sessionId status mode transportId version protocols encoding features peer { machineId addresses peerId } handoff { token expiresAt } chunkIds";
    const ACCESS = "access { schemaVersion chunkId buyer { recipientId recipientType algorithm publicKeyHex wrappedKeyHex } }";
    const prepared = await graphql(
      p.graphql,
      `mutation ($id: String!, $items: [JSONObject!]!, $agentId: String, $agentToken: String) {
        preparePurchaseAccess(purchaseId: $id, items: $items, agentId: $agentId, agentToken: $agentToken) { item { id status } ${ACCESS} deliverySession { id status } } }`,
      { id: purchase.id, items: accessFor(m, bought()), ...agent },
    );
    expect(prepared.body.errors).toBeUndefined();
    expect(prepared.body.data.preparePurchaseAccess).toMatchObject({ item: { id: purchase.id, status: "PAID" }, deliverySession: { status: "READY" } });
    expect(prepared.body.data.preparePurchaseAccess.access.map((a: { chunkId: string }) => a.chunkId)).toEqual(bought());

    const read = await graphql(
      p.graphql,
      `mutation ($id: String!, $token: String) { getPurchaseDelivery(purchaseId: $id, pairingToken: $token) { purchaseId status delivery { ${SESSION} } ${ACCESS} } }`,
      { id: purchase.id, token: m.buyer.token },
    );
    expect(read.body.errors).toBeUndefined();
    const typed = read.body.data.getPurchaseDelivery;
    const rest = expectOk(await buyerCall(p, m, "GET", `/purchases/${purchase.id}/delivery`));
    expect(typed.status).toBe("PAID");
    expect(typed.delivery.status).toBe("READY");
    const withoutHandoff = (d: { handoff: unknown }) => ({ ...d, handoff: null });
    expect({ ...typed, status: "paid", delivery: { ...withoutHandoff(typed.delivery), status: "ready" } }).toEqual({ ...rest, delivery: withoutHandoff(rest.delivery) });

    const grant = await graphql(
      p.graphql,
      `mutation ($machineId: String!, $handoff: String!, $agentId: String, $agentToken: String) {
        verifyPurchaseHandoff(machineId: $machineId, handoffToken: $handoff, agentId: $agentId, agentToken: $agentToken) {
          purchaseId sessionId buyerId chunkIds transportId expiresAt purchaseStatus } }`,
      // The REST read issued the latest handoff, which superseded the GraphQL one.
      { machineId: m.seller.machineId, handoff: rest.delivery.handoff.token, ...agent },
    );
    expect(grant.body.errors).toBeUndefined();
    expect(grant.body.data.verifyPurchaseHandoff).toEqual({
      purchaseId: purchase.id, sessionId: typed.delivery.sessionId, buyerId: m.buyer.did, chunkIds: bought(), transportId: typed.delivery.transportId,
      expiresAt: rest.delivery.handoff.expiresAt, purchaseStatus: "PAID",
    });

    const connected = await graphql(
      p.graphql,
      `mutation ($id: String!, $input: JSONObject!, $token: String) {
        createPurchaseEvent(purchaseId: $id, input: $input, pairingToken: $token) { id type actor { type id } data purchaseStatus createdAt } }`,
      { id: purchase.id, input: { type: "buyer.connected", actor: { type: "buyer", id: m.buyer.did }, data: { note: "typed" } }, token: m.buyer.token },
    );
    expect(connected.body.errors).toBeUndefined();
    expect(connected.body.data.createPurchaseEvent).toMatchObject({
      type: "buyer.connected", actor: { type: "buyer", id: m.buyer.did }, data: { note: "typed" }, purchaseStatus: "DELIVERING",
    });
    expect((await purchaseState(p, purchase.id)).purchase!.status).toBe("delivering");
  });
});
