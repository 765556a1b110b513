/**
 * Expiry of unpaid stream orders and purchases (docs/stream-marketplace.md "Expiry") over the real REST routes and
 * GraphQL, with an injected clock and a 60 s TTL: the lifecycle job expires due rows (not before their due time plus
 * the job's grace), two sweeps at once expire each row once with one audit event; a payment call on a due row expires
 * it itself and answers STREAM_ORDER_EXPIRED / PURCHASE_EXPIRED, a payment just in time pays, and every later payment
 * call is refused with the row and its events unchanged. PGlite, and PostgreSQL when DATABASE_URL is set.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../subgraphs/shared/config.js";
import { describeSweep } from "../../subgraphs/markets/lifecycle/index.js";
import { SWEEP_GRACE_MS } from "../../subgraphs/markets/common/payment.expiry.js";
import { manualClock } from "../support/clock.js";
import { graphql } from "../support/platform.js";
import {
  createStreamOrder,
  expectMarketsError,
  expectOk,
  marketsServices,
  newBuyer,
  orderState,
  payStreamOrder,
  PLATFORM_START_TIMEOUT_MS,
  prismaOf,
  seedListing,
  startMarketsPlatform,
  transferToPayee,
  type MarketsPlatform,
  type SeededListing,
} from "./orders/orders-helpers.js";
import { buyerCall, chainOf, createMarket, purchaseBody, purchaseKinds, purchaseState, type Market } from "./purchases/purchases-helpers.js";

const TTL_MS = 60_000;

describe("stream orders and purchases expire unpaid", () => {
  const clock = manualClock();
  let p: MarketsPlatform;
  let m: Market;
  let listing: SeededListing;
  let chain: ReturnType<typeof chainOf>;

  beforeAll(async () => {
    p = await startMarketsPlatform({ STREAM_ORDER_PAYMENT_TTL_SECONDS: "60", STREAM_PURCHASE_PAYMENT_TTL_SECONDS: "60" }, { clock });
    m = await createMarket(p, 0, 1, p.demo.payments!.agents[0].privateKey);
    listing = await seedListing(p, m.seller, { amount: "0.02" });
    chain = chainOf(p);
  }, PLATFORM_START_TIMEOUT_MS);
  afterAll(async () => {
    chain?.provider.destroy();
    await p?.close();
  });

  const newOrder = async () => {
    const buyer = newBuyer();
    return expectOk(await createStreamOrder(p, { listingId: listing.listingId, buyerId: buyer.id, buyerPublicKeyHex: buyer.publicKeyHex }), 201).item;
  };
  const newPurchase = async () => expectOk(await buyerCall(p, m, "POST", "/purchases", purchaseBody(m)), 201).item;
  const expiredEvents = async (kind: string, key: "orderId" | "purchaseId", id: string) =>
    (await prismaOf(p).marketAuditEvent.findMany({ where: { kind } })).filter((e: any) => e.data[key] === id);
  const orderQuery = `query($id: String!) { streamOrder(orderId: $id) { id status } }`;

  it("settings: 3600 s by default, 60..604800 accepted", () => {
    const work = loadConfig({}).marketsWork;
    expect([work.streamOrderPaymentTtlSeconds, work.streamPurchasePaymentTtlSeconds, work.lifecycleSweepIntervalMs]).toEqual([3600, 3600, 60_000]);
    expect(() => loadConfig({ STREAM_ORDER_PAYMENT_TTL_SECONDS: "59" })).toThrow(/STREAM_ORDER_PAYMENT_TTL_SECONDS/);
    expect(() => loadConfig({ STREAM_PURCHASE_PAYMENT_TTL_SECONDS: "604801" })).toThrow(/STREAM_PURCHASE_PAYMENT_TTL_SECONDS/);
  });

  it("the job expires due orders and purchases after TTL + grace, not before; two sweeps at once expire each row once", async () => {
    const orders = [await newOrder(), await newOrder()];
    const purchase = await newPurchase();
    expect(purchase.status).toBe("payment_pending");
    const sweep = () => marketsServices(p).lifecycle.run();

    clock.advance(TTL_MS + SWEEP_GRACE_MS - 1);
    expect(await sweep()).toEqual({ streamOrdersExpired: 0, purchasesExpired: 0, ordersRecovered: 0, refundsCompleted: 0, tasksRecovered: 0 });
    expect((await prismaOf(p).streamOrder.findUniqueOrThrow({ where: { id: orders[0].id } })).status).toBe("payment_pending");

    clock.advance(1);
    const [a, b] = await Promise.all([sweep(), sweep()]);
    expect([a.streamOrdersExpired + b.streamOrdersExpired, a.purchasesExpired + b.purchasesExpired]).toEqual([2, 1]);
    expect(describeSweep(a)).toMatch(/^lifecycle sweep: \d stream orders expired, \d purchases expired, 0 market orders recovered, 0 recovery refunds completed, 0 tasks recovered$/);
    for (const order of orders) {
      const state = await orderState(p, order.id);
      expect({ status: state.order!.status, events: state.events, sessions: state.sessions.length }).toEqual({
        status: "expired",
        events: ["stream.order.created", "stream.order.expired"],
        sessions: 0,
      });
      const [event] = await expiredEvents("stream.order.expired", "orderId", order.id);
      expect({ actor: [event!.actorType, event!.actorId], via: (event!.data as any).via }).toEqual({ actor: ["system", "lifecycle"], via: "sweep" });
    }
    expect((await purchaseState(p, purchase.id)).purchase!.status).toBe("expired");
    expect((await expiredEvents("stream.purchase.expired", "purchaseId", purchase.id)).length).toBe(1);
    expect(await sweep()).toEqual({ streamOrdersExpired: 0, purchasesExpired: 0, ordersRecovered: 0, refundsCompleted: 0, tasksRecovered: 0 });

    // Paying an order the job expired: refused, nothing changes (REST and GraphQL).
    const before = await orderState(p, orders[0].id);
    const txHash = await transferToPayee(p, "0.02");
    expectMarketsError(await payStreamOrder(p, orders[0].id, { paymentReference: txHash }), 409, "STREAM_ORDER_EXPIRED");
    const gql = await graphql(p.graphql, `mutation($id: String!, $ref: String!) { payStreamOrder(orderId: $id, paymentReference: $ref) { status } }`, { id: orders[0].id, ref: txHash });
    expect(gql.body.errors?.[0]?.extensions?.code).toBe("STREAM_ORDER_EXPIRED");
    expect(await orderState(p, orders[0].id)).toEqual(before);
    expect((await graphql(p.graphql, orderQuery, { id: orders[0].id })).body.data.streamOrder.status).toBe("EXPIRED");
  });

  it("a payment just in time pays; a payment call on a due order expires it itself and answers STREAM_ORDER_EXPIRED; later calls change nothing", async () => {
    const inTime = await newOrder();
    const late = await newOrder();
    const [inTimeTx, lateTx] = [await transferToPayee(p, "0.02"), await transferToPayee(p, "0.02")];
    clock.advance(TTL_MS - 1);
    expect(expectOk(await payStreamOrder(p, inTime.id, { paymentReference: inTimeTx })).item.status).toBe("paid");
    clock.advance(1);

    expectMarketsError(await payStreamOrder(p, late.id, { paymentReference: lateTx }), 409, "STREAM_ORDER_EXPIRED");
    const after = await orderState(p, late.id);
    expect({ status: after.order!.status, paymentTxHash: after.order!.paymentTxHash, events: after.events }).toEqual({
      status: "expired",
      paymentTxHash: null,
      events: ["stream.order.created", "stream.order.expired"],
    });
    expect(((await expiredEvents("stream.order.expired", "orderId", late.id))[0]!.data as any).via).toBe("payment");

    expectMarketsError(await payStreamOrder(p, late.id, { paymentReference: lateTx }), 409, "STREAM_ORDER_EXPIRED");
    const gql = await graphql(p.graphql, `mutation($id: String!, $ref: String!) { payStreamOrder(orderId: $id, paymentReference: $ref) { status } }`, { id: late.id, ref: lateTx });
    expect(gql.body.errors?.[0]?.extensions?.code).toBe("STREAM_ORDER_EXPIRED");
    expect(await orderState(p, late.id)).toEqual(after);
    // The job finds nothing of these left to do.
    expect((await marketsServices(p).lifecycle.run()).streamOrdersExpired).toBe(0);
  });

  it("purchases: a proof on a due purchase expires it and answers PURCHASE_EXPIRED; intent and proof then change nothing", async () => {
    const purchase = await newPurchase();
    expectOk(await buyerCall(p, m, "POST", `/purchases/${purchase.id}/payment-intent`, { rail: "transfer" }));
    const txHash = await chain.transfer(m.buyer.wallet, chain.payments.payee.address, 30_000n);
    clock.advance(TTL_MS);

    const proof = () => buyerCall(p, m, "POST", `/purchases/${purchase.id}/payment-proof`, { rail: "transfer", transactionHash: txHash });
    expectMarketsError(await proof(), 409, "PURCHASE_EXPIRED");
    const after = await purchaseState(p, purchase.id);
    expect({ status: after.purchase!.status, paymentTxHash: after.purchase!.paymentTxHash, sessions: after.sessions.length }).toEqual({ status: "expired", paymentTxHash: null, sessions: 0 });
    expect(await purchaseKinds(p, purchase.id)).toEqual([
      "stream.purchase.created",
      "stream.purchase.payment-pending",
      "stream.purchase.payment-intent-created",
      "stream.purchase.expired",
    ]);

    expectMarketsError(await proof(), 409, "PURCHASE_EXPIRED");
    expectMarketsError(await buyerCall(p, m, "POST", `/purchases/${purchase.id}/payment-intent`, { rail: "transfer" }), 409, "PURCHASE_EXPIRED");
    expect(await purchaseState(p, purchase.id)).toEqual(after);
    const read = await graphql(p.graphql, `query($id: String!, $t: String) { purchase(purchaseId: $id, pairingToken: $t) { status } }`, { id: purchase.id, t: m.buyer.token });
    expect(read.body.data?.purchase?.status).toBe("EXPIRED");

    // A due purchase's first payment call may be the intent: it expires it just the same.
    const second = await newPurchase();
    clock.advance(TTL_MS);
    expectMarketsError(await buyerCall(p, m, "POST", `/purchases/${second.id}/payment-intent`, { rail: "transfer" }), 409, "PURCHASE_EXPIRED");
    expect(await purchaseKinds(p, second.id)).toEqual(["stream.purchase.created", "stream.purchase.payment-pending", "stream.purchase.expired"]);
  });
});
