/**
 * Stream orders, buyer side (order flow; docs/stream-marketplace.md) over the real REST routes: create
 * (price, chunk subset, key normalisation, every refusal leaving nothing behind), read, the seller's view, payment by a
 * transfer's hash as the reference (a `requested` delivery session; a bare reference refused), and delivery: nothing before paid and prepared, nothing for another
 * buyer, only the bought chunks' keys, which the buyer opens with its X25519 key (real crypto) and a wrong key cannot.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decryptChunk, openBuyerAccess, StreamFormatError } from "../../../subgraphs/markets/stream/index.js";
import { graphql } from "../../support/platform.js";
import {
  accessFor,
  api,
  createStreamOrder,
  streamPayer,
  expectMarketsError,
  expectOk,
  getDelivery,
  marketsServices,
  newBuyer,
  orderSeller,
  orderState,
  paidOrder,
  payStreamOrder,
  PLATFORM_START_TIMEOUT_MS,
  prepareAccess,
  prismaOf,
  seedListing,
  sellerHeaders,
  startMarketsPlatform,
  transferToPayee,
  type MarketsPlatform,
  type SeededListing,
  type StreamSeller,
} from "./orders-helpers.js";

const jwtClaims = (token: string) => JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString("utf8"));

describe("stream orders: buyer flow", () => {
  let p: MarketsPlatform;
  let seller: StreamSeller;
  let other: StreamSeller;
  let listing: SeededListing;
  let perChunk: SeededListing;

  beforeAll(async () => {
    p = await startMarketsPlatform();
    seller = await orderSeller(p, 0);
    other = await orderSeller(p, 1);
    listing = await seedListing(p, seller, { count: 3, amount: "0.5" });
    perChunk = await seedListing(p, seller, { count: 4, amount: "2", perChunk: "0.25" });
  }, PLATFORM_START_TIMEOUT_MS);
  afterAll(() => p?.close());

  const count = () => prismaOf(p).streamOrder.count();

  it("create: payment_pending at the listing's price, every chunk, key stored lowercase", async () => {
    const buyer = newBuyer();
    const item = expectOk(
      await createStreamOrder(p, { listingId: listing.listingId, buyerId: buyer.id, buyerPublicKeyHex: buyer.publicKeyHex.toUpperCase() }),
      201,
    ).item;
    expect(item).toMatchObject({
      listingId: listing.listingId,
      machineId: seller.machineId,
      buyerId: buyer.id,
      buyerPublicKeyHex: buyer.publicKeyHex,
      chunkIds: listing.chunkIds,
      status: "payment_pending",
      price: { amount: "0.5", currency: "USD" },
      paymentReference: null,
      paidAt: null,
    });
    expect(item.id).toMatch(/^sord_[a-z2-7]{16}$/);
    // GET of one order adds its payment deadline: createdAt + STREAM_ORDER_PAYMENT_TTL_SECONDS (default 3600).
    const read = expectOk(await api(p, "GET", `/stream/orders/${item.id}`)).item;
    expect(read).toEqual({ ...item, paymentDueAt: new Date(Date.parse(item.createdAt) + 3600_000).toISOString() });
    expect((await orderState(p, item.id)).events).toEqual(["stream.order.created"]);
  });

  it("create: a chunk subset is kept in listing order and priced per chunk when the listing has a per-chunk price", async () => {
    const buyer = newBuyer();
    const chosen = [perChunk.chunkIds[2]!, perChunk.chunkIds[0]!];
    const item = expectOk(await createStreamOrder(p, { listingId: perChunk.listingId, buyerId: buyer.id, buyerPublicKeyHex: buyer.publicKeyHex, chunkIds: chosen }), 201).item;
    expect(item.chunkIds).toEqual([perChunk.chunkIds[0], perChunk.chunkIds[2]]);
    expect(item.price).toEqual({ amount: "0.5", currency: "USD" });
    const all = expectOk(await createStreamOrder(p, { listingId: perChunk.listingId, buyerId: buyer.id, buyerPublicKeyHex: buyer.publicKeyHex, chunkIds: perChunk.chunkIds }), 201).item;
    expect(all.price.amount).toBe("2");
    // Without a per-chunk price a subset costs the listing's price.
    const subset = expectOk(await createStreamOrder(p, { listingId: listing.listingId, buyerId: buyer.id, buyerPublicKeyHex: buyer.publicKeyHex, chunkIds: [listing.chunkIds[1]] }), 201).item;
    expect([subset.chunkIds, subset.price.amount]).toEqual([[listing.chunkIds[1]], "0.5"]);
  });

  it("create: every bad input is refused with its code and creates nothing", async () => {
    const buyer = newBuyer();
    const base = { listingId: listing.listingId, buyerId: buyer.id, buyerPublicKeyHex: buyer.publicKeyHex };
    const inactive = await seedListing(p, seller, { count: 1, status: "inactive" });
    const before = await count();
    const cases: Array<[unknown, number, string]> = [
      [{ ...base, buyerPublicKeyHex: buyer.publicKeyHex.slice(2) }, 400, "VALIDATION_ERROR"],
      [{ ...base, buyerPublicKeyHex: `${buyer.publicKeyHex}00` }, 400, "VALIDATION_ERROR"],
      [{ ...base, buyerPublicKeyHex: `zz${buyer.publicKeyHex.slice(2)}` }, 400, "VALIDATION_ERROR"],
      [{ ...base, buyerPublicKeyHex: 7 }, 400, "VALIDATION_ERROR"],
      [{ ...base, buyerId: "" }, 400, "VALIDATION_ERROR"],
      [{ ...base, buyerId: " padded" }, 400, "VALIDATION_ERROR"],
      [{ listingId: listing.listingId, buyerPublicKeyHex: buyer.publicKeyHex }, 400, "VALIDATION_ERROR"],
      [{ ...base, chunkIds: [] }, 400, "VALIDATION_ERROR"],
      [{ ...base, chunkIds: [listing.chunkIds[0], listing.chunkIds[0]] }, 400, "VALIDATION_ERROR"],
      [{ ...base, chunkIds: [listing.chunkIds[0], perChunk.chunkIds[0]] }, 400, "STREAM_CHUNK_NOT_IN_LISTING"],
      [{ ...base, chunkIds: ["sha256:nope"] }, 400, "STREAM_CHUNK_NOT_IN_LISTING"],
      [{ ...base, listingId: "slst_unknown" }, 404, "STREAM_LISTING_NOT_FOUND"],
      [{ ...base, listingId: "../x" }, 404, "STREAM_LISTING_NOT_FOUND"],
      [{ ...base, listingId: inactive.listingId }, 409, "STREAM_LISTING_INACTIVE"],
      ["[]", 400, "VALIDATION_ERROR"],
    ];
    for (const [body, status, code] of cases) expectMarketsError(await createStreamOrder(p, body), status, code);
    expect(await count()).toBe(before);
  });

  it("read: unknown and malformed order IDs are STREAM_ORDER_NOT_FOUND", async () => {
    expectMarketsError(await api(p, "GET", "/stream/orders/sord_aaaaaaaaaaaaaaaa"), 404, "STREAM_ORDER_NOT_FOUND");
    expectMarketsError(await api(p, "GET", "/stream/orders/nope"), 404, "STREAM_ORDER_NOT_FOUND");
  });

  it("seller view: the machine's orders, newest first, for its own agent only", async () => {
    const buyer = newBuyer();
    const a = expectOk(await createStreamOrder(p, { listingId: listing.listingId, buyerId: buyer.id, buyerPublicKeyHex: buyer.publicKeyHex }), 201).item;
    const b = expectOk(await createStreamOrder(p, { listingId: listing.listingId, buyerId: buyer.id, buyerPublicKeyHex: buyer.publicKeyHex }), 201).item;
    const page = expectOk(await api(p, "GET", `/machines/${seller.machineId}/stream/orders?limit=2`, undefined, sellerHeaders(seller)));
    expect(page.items.map((o: any) => o.id)).toEqual([b.id, a.id]);
    expect(typeof page.nextCursor).toBe("string");
    const next = expectOk(await api(p, "GET", `/machines/${seller.machineId}/stream/orders?limit=2&cursor=${page.nextCursor}`, undefined, sellerHeaders(seller)));
    expect(next.items.every((o: any) => o.machineId === seller.machineId && o.id !== a.id && o.id !== b.id)).toBe(true);
    expectOk(await api(p, "GET", `/machines/${other.machineId}/stream/orders`, undefined, sellerHeaders(other)));
    expect(expectOk(await api(p, "GET", `/machines/${other.machineId}/stream/orders`, undefined, sellerHeaders(other))).items).toEqual([]);
    expectMarketsError(await api(p, "GET", `/machines/${seller.machineId}/stream/orders`), 401, "AGENT_AUTH_REQUIRED");
    expectMarketsError(await api(p, "GET", `/machines/${seller.machineId}/stream/orders`, undefined, sellerHeaders(other)), 401, "AGENT_AUTH_INVALID");
    const wrong = { ...sellerHeaders(seller), "x-machine-agent-token": `mat_${"A".repeat(43)}` };
    expectMarketsError(await api(p, "GET", `/machines/${seller.machineId}/stream/orders`, undefined, wrong), 401, "AGENT_AUTH_INVALID");
  });

  it("payment: a bare reference is refused; a transfer's hash as the reference pays, with a requested delivery session; refusals change nothing", async () => {
    const buyer = newBuyer();
    const order = expectOk(await createStreamOrder(p, { listingId: listing.listingId, buyerId: buyer.id, buyerPublicKeyHex: buyer.publicKeyHex }), 201).item;
    const before = await orderState(p, order.id);
    for (const body of [{}, { paymentReference: "" }, { paymentReference: "   " }, { paymentReference: "x".repeat(257) }, { paymentReference: 5 }, { paymentReference: "r", proof: "0x12" }, { paymentReference: "r", proof: { chainId: "31337", txHash: "0x12" } }]) {
      expectMarketsError(await payStreamOrder(p, order.id, body), 400, "VALIDATION_ERROR");
    }
    expect(await orderState(p, order.id)).toEqual(before);
    expectMarketsError(await payStreamOrder(p, "sord_aaaaaaaaaaaaaaaa", { paymentReference: "r" }), 404, "STREAM_ORDER_NOT_FOUND");
    // A self-reported reference is no proof by default: refused, the order stays payment_pending.
    expectMarketsError(await payStreamOrder(p, order.id, { paymentReference: "bank-transfer-42" }), 400, "STREAM_PAYMENT_PROOF_REQUIRED");
    expect(await orderState(p, order.id)).toEqual(before);
    const txHash = await transferToPayee(p, order.price.amount);
    const paid = expectOk(await payStreamOrder(p, order.id, { paymentReference: txHash })).item;
    expect(paid).toMatchObject({ id: order.id, status: "paid", paymentReference: txHash, paymentProof: { txHash: txHash.toLowerCase(), to: p.demo.payments!.payee.address } });
    expect(paid.paidAt).not.toBeNull();
    const after = await orderState(p, order.id);
    expect(after.sessions.map((s) => [s.status, s.mode, s.machineId])).toEqual([["requested", "platform", seller.machineId]]);
    expect(after.events).toEqual(["stream.order.created", "stream.order.paid", "stream.delivery-session.requested"]);
    expectMarketsError(await payStreamOrder(p, order.id, { paymentReference: await transferToPayee(p, order.price.amount) }), 409, "STREAM_ORDER_STATE_INVALID");
    expect(await orderState(p, order.id)).toEqual(after);
  });

  it("delivery: nothing before paid and prepared, nothing for another buyer; the bought chunks' keys open with the buyer's key only", async () => {
    const buyer = newBuyer();
    const bought = [listing.chunks[0]!, listing.chunks[2]!];
    const order = expectOk(
      await createStreamOrder(p, { listingId: listing.listingId, buyerId: buyer.id, buyerPublicKeyHex: buyer.publicKeyHex, chunkIds: bought.map((c) => c.manifest.chunkId) }),
      201,
    ).item;
    expectMarketsError(await getDelivery(p, order.id, buyer.id), 409, "STREAM_ORDER_NOT_PAID");
    expectOk(await payStreamOrder(p, order.id, { paymentReference: await transferToPayee(p, order.price.amount) }));
    expectMarketsError(await getDelivery(p, order.id, buyer.id), 409, "STREAM_ACCESS_NOT_PREPARED");
    const prepared = expectOk(await prepareAccess(p, seller, order.id, accessFor(seller, bought, buyer)));
    expect(prepared.item.status).toBe("access_prepared");
    expect(prepared.deliverySession).toMatchObject({ status: "ready", mode: "platform", orderId: order.id });
    expect(prepared.access.map((a: any) => a.chunkId)).toEqual(order.chunkIds);

    const stranger = newBuyer();
    const before = await orderState(p, order.id);
    expectMarketsError(await getDelivery(p, order.id, stranger.id), 404, "STREAM_ORDER_NOT_FOUND");
    expectMarketsError(await api(p, "GET", `/stream/orders/${order.id}/delivery`), 400, "VALIDATION_ERROR");
    expectMarketsError(await api(p, "GET", `/stream/orders/${order.id}/delivery?buyerId=a&buyerId=b`), 400, "VALIDATION_ERROR");
    expect(await orderState(p, order.id)).toEqual(before);

    const answer = await getDelivery(p, order.id, buyer.id);
    const body = expectOk(answer);
    expect(Object.keys(body)).not.toContain("item");
    expect(body).toMatchObject({ orderId: order.id, buyerId: buyer.id, status: "delivered", chunkIds: order.chunkIds });
    expect(body.access.map((a: any) => a.chunkId)).toEqual(order.chunkIds);
    expect(JSON.stringify(body)).not.toContain(listing.chunkIds[1]);
    expect(body.delivery).toMatchObject({ mode: "platform", status: "delivered", tokenType: "Bearer" });
    expect(body.delivery.chunks.map((c: any) => c.url)).toEqual(order.chunkIds.map((id: string) => `/api/v1/stream/chunks/${encodeURIComponent(id)}/data`));
    expect(body.delivery.chunks.map((c: any) => c.encryptedDataHash)).toEqual(bought.map((c) => c.manifest.encryptedDataHash));
    const claims = jwtClaims(body.delivery.token);
    expect([claims.scope, claims.buyerId, claims.chunkIds]).toEqual([{ orderId: order.id }, buyer.id, order.chunkIds]);
    // The chunk data route's own verifier accepts it, for the bought chunks only.
    const verified = await marketsServices(p).deliveryTokens.verify(body.delivery.token, Date.now());
    expect([verified.scope, verified.chunkIds]).toEqual([{ orderId: order.id }, order.chunkIds]);
    expect(new Date(body.delivery.tokenExpiresAt).getTime()).toBe(verified.exp * 1000);

    // Real crypto: the buyer opens each bought chunk's key and decrypts the chunk; a wrong key opens nothing.
    for (const [index, chunk] of bought.entries()) {
      const key = openBuyerAccess(body.access[index], chunk.manifest, buyer.secretKey);
      expect(Buffer.from(decryptChunk(chunk.manifest, chunk.ciphertext, key)).length).toBe(64);
      expect(() => openBuyerAccess(body.access[index], chunk.manifest, stranger.secretKey)).toThrow(StreamFormatError);
      const forged = { ...body.access[index], buyer: { ...body.access[index].buyer, publicKeyHex: stranger.publicKeyHex } };
      expect(() => openBuyerAccess(forged, chunk.manifest, stranger.secretKey)).toThrow(/does not open/);
    }
    const after = await orderState(p, order.id);
    expect([after.order!.status, after.sessions.map((s) => s.status)]).toEqual(["delivered", ["delivered"]]);
    expect(after.events).toEqual([
      "stream.order.created",
      "stream.order.paid",
      "stream.delivery-session.requested",
      "stream.order.access-prepared",
      "stream.delivery-session.updated",
      "stream.delivery-session.updated",
      "stream.order.delivered",
    ]);
    // Asked again: the same grants, a fresh token, no second transition.
    const again = expectOk(await getDelivery(p, order.id, buyer.id));
    expect(again.access).toEqual(body.access);
    expect((await orderState(p, order.id)).events).toEqual(after.events);
  });

  it("delivery of a cancelled or expired order is STREAM_ORDER_STATE_INVALID; paying it STREAM_ORDER_STATE_INVALID or STREAM_ORDER_EXPIRED", async () => {
    const buyer = newBuyer();
    for (const status of ["cancelled", "expired"]) {
      const order = expectOk(await createStreamOrder(p, { listingId: listing.listingId, buyerId: buyer.id, buyerPublicKeyHex: buyer.publicKeyHex }), 201).item;
      await prismaOf(p).streamOrder.update({ where: { id: order.id }, data: { status } });
      expectMarketsError(await getDelivery(p, order.id, buyer.id), 409, "STREAM_ORDER_STATE_INVALID");
      const refusal = status === "expired" ? "STREAM_ORDER_EXPIRED" : "STREAM_ORDER_STATE_INVALID";
      expectMarketsError(await payStreamOrder(p, order.id, { paymentReference: `0x${"cd".repeat(32)}` }), 409, refusal);
    }
  });

  it("GraphQL serves the same operations", async () => {
    const buyer = newBuyer();
    const created = await graphql(
      p.graphql,
      `mutation($input: CreateStreamOrderInput!) { createStreamOrder(input: $input) { id status price { amount currency } payerAddress } }`,
      { input: { listingId: listing.listingId, buyerId: buyer.id, buyerPublicKeyHex: buyer.publicKeyHex, payerAddress: streamPayer(p).toLowerCase() } },
    );
    expect(created.body.data.createStreamOrder.payerAddress).toBe(streamPayer(p));
    const id = created.body.data.createStreamOrder.id;
    expect(created.body.data.createStreamOrder).toMatchObject({ status: "PAYMENT_PENDING", price: { amount: "0.5", currency: "USD" } });
    const reference = await transferToPayee(p, "0.5");
    const paid = await graphql(p.graphql, `mutation($id: String!, $ref: String!) { payStreamOrder(orderId: $id, paymentReference: $ref) { status } }`, { id, ref: reference });
    expect(paid.body.data.payStreamOrder.status).toBe("PAID");
    const missing = await graphql(p.graphql, `query { streamOrder(orderId: "sord_aaaaaaaaaaaaaaaa") { id } }`);
    expect(missing.body.errors?.[0]?.extensions?.code).toBe("STREAM_ORDER_NOT_FOUND");
  });

  it("each change and its stream.* audit events commit together: a failure before commit leaves neither", async () => {
    const buyer = newBuyer();
    const { store } = marketsServices(p);
    const ordersBefore = await count();
    const fail = () => {
      throw new Error("injected after the audit write");
    };
    store.beforeCommit = fail;
    try {
      expectMarketsError(await createStreamOrder(p, { listingId: listing.listingId, buyerId: buyer.id, buyerPublicKeyHex: buyer.publicKeyHex }), 500, "INTERNAL_ERROR");
    } finally {
      store.beforeCommit = null;
    }
    expect(await count()).toBe(ordersBefore);
    const order = expectOk(await createStreamOrder(p, { listingId: listing.listingId, buyerId: buyer.id, buyerPublicKeyHex: buyer.publicKeyHex }), 201).item;
    const reference = await transferToPayee(p, order.price.amount);
    const steps: Array<[() => Promise<unknown>, string]> = [
      [() => payStreamOrder(p, order.id, { paymentReference: reference }), "paid"],
      [() => prepareAccess(p, seller, order.id, accessFor(seller, listing.chunks, buyer)), "access_prepared"],
      [() => getDelivery(p, order.id, buyer.id), "delivered"],
    ];
    for (const [step, status] of steps) {
      const before = await orderState(p, order.id);
      store.beforeCommit = fail;
      try {
        expectMarketsError((await step()) as any, 500, "INTERNAL_ERROR");
      } finally {
        store.beforeCommit = null;
      }
      expect(await orderState(p, order.id)).toEqual(before);
      expect(((await step()) as any).status).toBe(200);
      const after = await orderState(p, order.id);
      expect(after.order!.status).toBe(status);
      expect(after.events.length).toBeGreaterThan(before.events.length);
    }
  });

  it("the paid-order helper pays", async () => {
    expect((await paidOrder(p, listing, newBuyer())).status).toBe("paid");
  });
});
