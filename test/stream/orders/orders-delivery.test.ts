/**
 * Stream orders, seller side of delivery (order flow; docs/stream-marketplace.md) over the real REST
 * routes: prepare-access (only on paid orders, exactly the bought chunks, each to the order's buyer and key; every
 * refusal leaves order, access rows, sessions and audit events as they were), delivery sessions (poll, PATCH through
 * the session table), the seller-served mode and storage references.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  accessFor,
  api,
  createStreamOrder,
  expectMarketsError,
  expectOk,
  getDelivery,
  newBuyer,
  orderSeller,
  orderState,
  paidOrder,
  PLATFORM_START_TIMEOUT_MS,
  prepareAccess,
  prismaOf,
  seedListing,
  sellerBody,
  sellerHeaders,
  startMarketsPlatform,
  type MarketsPlatform,
  type SeededListing,
  type StreamSeller,
} from "./orders-helpers.js";

describe("stream orders: prepare-access and delivery sessions", () => {
  let p: MarketsPlatform;
  let seller: StreamSeller;
  let other: StreamSeller;
  let listing: SeededListing;

  beforeAll(async () => {
    p = await startMarketsPlatform();
    seller = await orderSeller(p, 0);
    other = await orderSeller(p, 1);
    listing = await seedListing(p, seller, { count: 3 });
  }, PLATFORM_START_TIMEOUT_MS);
  afterAll(() => p?.close());

  const poll = (who: StreamSeller, body: Record<string, unknown> = {}) => api(p, "POST", "/stream/delivery-sessions/poll", { ...sellerBody(who), ...body });
  const patch = (who: StreamSeller, sessionId: string, body: Record<string, unknown>) =>
    api(p, "PATCH", `/stream/delivery-sessions/${sessionId}`, { machineId: who.machineId, ...body }, sellerHeaders(who));

  it("prepare-access refuses anything but exactly the bought chunks for the order's buyer key, and changes nothing", async () => {
    const buyer = newBuyer();
    const stranger = newBuyer();
    const [c0, c1, c2] = listing.chunks as [any, any, any];
    const pending = expectOk(await createStreamOrder(p, { listingId: listing.listingId, buyerId: buyer.id, buyerPublicKeyHex: buyer.publicKeyHex, chunkIds: [c0.manifest.chunkId, c1.manifest.chunkId] }), 201).item;
    const good = accessFor(seller, [c0, c1], buyer);
    const unpaid = await orderState(p, pending.id);
    expectMarketsError(await prepareAccess(p, seller, pending.id, good), 409, "STREAM_ORDER_STATE_INVALID");
    expect(await orderState(p, pending.id)).toEqual(unpaid);

    const order = await paidOrder(p, listing, buyer, [c0.manifest.chunkId, c1.manifest.chunkId]);
    const before = await orderState(p, order.id);
    const foreignKey = accessFor(seller, [c0, c1], { id: buyer.id, publicKey: stranger.publicKey });
    const foreignBuyer = accessFor(seller, [c0, c1], { id: stranger.id, publicKey: buyer.publicKey });
    const cases: Array<[unknown, number, string]> = [
      [[], 400, "VALIDATION_ERROR"],
      [[{ schemaVersion: "nope" }], 400, "STREAM_ORDER_ACCESS_INVALID"],
      [[{ ...good[0], buyer: { ...good[0]!.buyer, wrappedKeyHex: "00" } }, good[1]], 400, "STREAM_ORDER_ACCESS_INVALID"],
      [[good[0]], 400, "STREAM_ORDER_ACCESS_MISMATCH"],
      [[good[0], good[0]], 400, "STREAM_ORDER_ACCESS_MISMATCH"],
      [[...good, ...accessFor(seller, [c2], buyer)], 400, "STREAM_ORDER_ACCESS_MISMATCH"],
      [[good[0], ...accessFor(seller, [c2], buyer)], 400, "STREAM_ORDER_ACCESS_MISMATCH"],
      [foreignKey, 400, "STREAM_ORDER_ACCESS_MISMATCH"],
      [foreignBuyer, 400, "STREAM_ORDER_ACCESS_MISMATCH"],
    ];
    for (const [items, status, code] of cases) expectMarketsError(await prepareAccess(p, seller, order.id, items), status, code);
    expectMarketsError(await prepareAccess(p, seller, order.id, good, { mode: "carrier-pigeon" }), 400, "VALIDATION_ERROR");
    expectMarketsError(await prepareAccess(p, seller, order.id, "nope"), 400, "VALIDATION_ERROR");
    // Another machine's agent, for its own machine or this one: the order is not theirs.
    expectMarketsError(await prepareAccess(p, other, order.id, good), 404, "STREAM_ORDER_NOT_FOUND");
    expectMarketsError(
      await api(p, "POST", `/stream/orders/${order.id}/prepare-access`, { machineId: seller.machineId, items: good }, sellerHeaders(other)),
      401,
      "AGENT_AUTH_INVALID",
    );
    expectMarketsError(await api(p, "POST", `/stream/orders/${order.id}/prepare-access`, { machineId: seller.machineId, items: good }), 401, "AGENT_AUTH_REQUIRED");
    expectMarketsError(
      await api(p, "POST", `/stream/orders/${order.id}/prepare-access`, { ...sellerBody(seller), agentToken: `mat_${"B".repeat(43)}`, items: good }, sellerHeaders(seller)),
      401,
      "AGENT_AUTH_INVALID",
    );
    expectMarketsError(await prepareAccess(p, seller, "sord_aaaaaaaaaaaaaaaa", good), 404, "STREAM_ORDER_NOT_FOUND");
    expect(await orderState(p, order.id)).toEqual(before);

    // Body credentials (the ROS 2 agent's form) work as the headers do.
    const ok = expectOk(await api(p, "POST", `/stream/orders/${order.id}/prepare-access`, { ...sellerBody(seller), items: good }));
    expect(ok.item.status).toBe("access_prepared");
    const after = await orderState(p, order.id);
    expect(after.access.map((a) => [a.chunkId, a.buyerId, a.publicKeyHex, a.orderId]).sort()).toEqual(
      [c0, c1].map((c) => [c.manifest.chunkId, buyer.id, buyer.publicKeyHex, order.id]).sort(),
    );
    expect(after.access.some((a) => a.chunkId === c2.manifest.chunkId)).toBe(false);
    expectMarketsError(await prepareAccess(p, seller, order.id, good), 409, "STREAM_ORDER_STATE_INVALID");
    expect(await orderState(p, order.id)).toEqual(after);
  });

  it("poll: the machine's sessions in the asked statuses, with what preparing the access needs", async () => {
    const buyer = newBuyer();
    const order = await paidOrder(p, listing, buyer);
    const items = expectOk(await poll(seller, { statuses: ["requested"] })).items;
    const mine = items.find((s: any) => s.orderId === order.id);
    expect(mine).toMatchObject({ status: "requested", mode: "platform", buyerId: buyer.id, buyerPublicKeyHex: buyer.publicKeyHex, chunkIds: listing.chunkIds });
    expect(items.every((s: any) => s.machineId === seller.machineId && s.status === "requested")).toBe(true);
    expect(expectOk(await poll(seller)).items.map((s: any) => s.id)).toContain(mine.id);
    expect(expectOk(await poll(other, { statuses: ["requested", "ready"] })).items).toEqual([]);
    expect(expectOk(await poll(seller, { statuses: ["failed"] })).items.map((s: any) => s.id)).not.toContain(mine.id);
    for (const statuses of [[], ["lost"], ["requested", "requested"], "requested"]) expectMarketsError(await poll(seller, { statuses }), 400, "VALIDATION_ERROR");
    expectMarketsError(await api(p, "POST", "/stream/delivery-sessions/poll", { machineId: seller.machineId }), 401, "AGENT_AUTH_REQUIRED");
    expectMarketsError(await api(p, "POST", "/stream/delivery-sessions/poll", { ...sellerBody(other), machineId: seller.machineId }), 401, "AGENT_AUTH_INVALID");
  });

  it("seller mode: preparing until the agent PATCHes ready with its URL; delivered by the agent; the table holds", async () => {
    const buyer = newBuyer();
    const order = await paidOrder(p, listing, buyer);
    const prepared = expectOk(await prepareAccess(p, seller, order.id, accessFor(seller, listing.chunks, buyer), { mode: "seller" }));
    const sessionId = prepared.deliverySession.id;
    expect(prepared.deliverySession).toMatchObject({ mode: "seller", status: "preparing" });
    expectMarketsError(await getDelivery(p, order.id, buyer.id), 409, "STREAM_DELIVERY_NOT_READY");
    const before = await orderState(p, order.id);
    const refusals: Array<[StreamSeller, string, Record<string, unknown>, number, string]> = [
      [seller, sessionId, { status: "ready" }, 400, "VALIDATION_ERROR"],
      [seller, sessionId, {}, 400, "VALIDATION_ERROR"],
      [seller, sessionId, { status: "shipped" }, 400, "VALIDATION_ERROR"],
      [seller, sessionId, { deliveryUrl: "file:///etc/passwd" }, 400, "VALIDATION_ERROR"],
      [seller, sessionId, { message: "" }, 400, "VALIDATION_ERROR"],
      [seller, sessionId, { status: "requested" }, 409, "STREAM_DELIVERY_SESSION_STATE_INVALID"],
      [seller, sessionId, { status: "delivered" }, 409, "STREAM_DELIVERY_SESSION_STATE_INVALID"],
      [seller, "sdel_aaaaaaaaaaaaaaaa", { status: "ready" }, 404, "STREAM_DELIVERY_SESSION_NOT_FOUND"],
      [other, sessionId, { message: "mine now" }, 404, "STREAM_DELIVERY_SESSION_NOT_FOUND"],
    ];
    for (const [who, id, body, status, code] of refusals) expectMarketsError(await patch(who, id, body), status, code);
    expect(await orderState(p, order.id)).toEqual(before);

    const url = "https://seller.example/stream/abc";
    expect(expectOk(await patch(seller, sessionId, { status: "ready", deliveryUrl: url, message: "serving" })).item).toMatchObject({ status: "ready", deliveryUrl: url, message: "serving" });
    const body = expectOk(await getDelivery(p, order.id, buyer.id));
    expect(body.delivery).toEqual({ sessionId, mode: "seller", status: "ready", deliveryUrl: url, message: "serving" });
    expect(body.access).toHaveLength(3);
    expect(body.status).toBe("access_prepared");
    expect(expectOk(await patch(seller, sessionId, { status: "delivered" })).item.status).toBe("delivered");
    const done = await orderState(p, order.id);
    expect(done.order!.status).toBe("delivered");
    expect(done.events.slice(-2)).toEqual(["stream.delivery-session.updated", "stream.order.delivered"]);
    expectMarketsError(await patch(seller, sessionId, { status: "failed" }), 409, "STREAM_DELIVERY_SESSION_STATE_INVALID");
    expectMarketsError(await patch(seller, sessionId, { message: "late" }), 409, "STREAM_DELIVERY_SESSION_STATE_INVALID");
    expect(await orderState(p, order.id)).toEqual(done);
  });

  it("a failed session: the buyer is told; a session cannot deliver before the access is prepared", async () => {
    const buyer = newBuyer();
    const order = await paidOrder(p, listing, buyer);
    const [session] = (await orderState(p, order.id)).sessions;
    expectOk(await patch(seller, session!.id, { status: "ready", deliveryUrl: "walrus://blob/1" }));
    expectMarketsError(await patch(seller, session!.id, { status: "delivered" }), 409, "STREAM_ACCESS_NOT_PREPARED");
    expect(expectOk(await patch(seller, session!.id, { status: "failed", message: "disk gone" })).item.status).toBe("failed");
    // Access prepared after the failure: a new session, in platform mode, ready at once.
    const prepared = expectOk(await prepareAccess(p, seller, order.id, accessFor(seller, listing.chunks, buyer)));
    expect(prepared.deliverySession.id).not.toBe(session!.id);
    expect(prepared.deliverySession.status).toBe("ready");
    await prismaOf(p).streamDeliverySession.update({ where: { id: prepared.deliverySession.id }, data: { status: "failed" } });
    expectMarketsError(await getDelivery(p, order.id, buyer.id), 409, "STREAM_DELIVERY_FAILED");
  });

  it("one buyer and key buying a chunk twice: both orders deliver its key, and only their own chunks", async () => {
    const buyer = newBuyer();
    const [c0, c1] = listing.chunks as [any, any];
    const first = await paidOrder(p, listing, buyer, [c0.manifest.chunkId]);
    const second = await paidOrder(p, listing, buyer, [c0.manifest.chunkId, c1.manifest.chunkId]);
    expectOk(await prepareAccess(p, seller, first.id, accessFor(seller, [c0], buyer)));
    expectOk(await prepareAccess(p, seller, second.id, accessFor(seller, [c0, c1], buyer)));
    const one = expectOk(await getDelivery(p, first.id, buyer.id));
    const two = expectOk(await getDelivery(p, second.id, buyer.id));
    expect(one.access.map((a: any) => a.chunkId)).toEqual([c0.manifest.chunkId]);
    expect(two.access.map((a: any) => a.chunkId)).toEqual([c0.manifest.chunkId, c1.manifest.chunkId]);
  });

  it("prepare-access takes bodies beyond the 64 KiB of other markets routes, bounded at 8 MiB", async () => {
    const big = await seedListing(p, seller, { count: 200 });
    const buyer = newBuyer();
    const order = await paidOrder(p, big, buyer);
    const items = accessFor(seller, big.chunks, buyer);
    expect(Buffer.byteLength(JSON.stringify({ machineId: seller.machineId, items }))).toBeGreaterThan(65_536);
    const before = await orderState(p, order.id);
    const oversized = { machineId: seller.machineId, items, padding: "x".repeat(8 * 1024 * 1024) };
    expectMarketsError(await api(p, "POST", `/stream/orders/${order.id}/prepare-access`, oversized, sellerHeaders(seller)), 413, "PAYLOAD_TOO_LARGE");
    expect(await orderState(p, order.id)).toEqual(before);
    expect(expectOk(await prepareAccess(p, seller, order.id, items)).access).toHaveLength(200);
    expect(expectOk(await getDelivery(p, order.id, buyer.id)).access).toHaveLength(200);
  });

  it("chunks stored outside the platform are delivered as their storage references", async () => {
    const remote = await seedListing(p, seller, { count: 2, storageRef: (i) => `walrus://blob-${i}` });
    const buyer = newBuyer();
    const order = await paidOrder(p, remote, buyer);
    expectOk(await prepareAccess(p, seller, order.id, accessFor(seller, remote.chunks, buyer)));
    const body = expectOk(await getDelivery(p, order.id, buyer.id));
    expect(body.delivery.chunks.map((c: any) => [c.chunkId, c.reference, c.url])).toEqual(remote.chunkIds.map((id, i) => [id, `walrus://blob-${i}`, undefined]));
  });
});
