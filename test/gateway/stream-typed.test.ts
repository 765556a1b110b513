/**
 * The stream marketplace's typed fields through the gateway: a stream order answers its status as the
 * `StreamOrderStatus` enum (UPPER_CASE), its instants as `DateTime`, and its payment deadline `paymentDueAt`
 * (createdAt + STREAM_ORDER_PAYMENT_TTL_SECONDS); the REST routes keep their spellings (`payment_pending`) and GET
 * of the order carries the same deadline. Real sockets, real database, real chain.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { graphql } from "../support/platform.js";
import {
  api,
  createStreamOrder,
  expectOk,
  newBuyer,
  orderSeller,
  payStreamOrder,
  PLATFORM_START_TIMEOUT_MS,
  prismaOf,
  seedListing,
  startMarketsPlatform,
  transferToPayee,
  type MarketsPlatform,
  type SeededListing,
} from "../stream/orders-helpers.js";

const ORDER_TTL_SECONDS = 900;

const ORDER = `query ($id: String!) { streamOrder(orderId: $id) {
  id status price { amount currency } paidAt createdAt updatedAt paymentDueAt
} }`;

describe("stream orders: typed fields through the gateway", () => {
  let p: MarketsPlatform;
  let listing: SeededListing;

  beforeAll(async () => {
    p = await startMarketsPlatform({ STREAM_ORDER_PAYMENT_TTL_SECONDS: String(ORDER_TTL_SECONDS) });
    listing = await seedListing(p, await orderSeller(p, 0), { count: 2, amount: "0.5" });
  }, PLATFORM_START_TIMEOUT_MS);
  afterAll(() => p?.close());

  async function order(id: string) {
    const { status, body } = await graphql(p.graphql, ORDER, { id });
    expect(status).toBe(200);
    expect(body.errors).toBeUndefined();
    return body.data.streamOrder;
  }

  it("an unpaid order: PAYMENT_PENDING, DateTime instants, paymentDueAt = createdAt + TTL on GraphQL and REST", async () => {
    const buyer = newBuyer();
    const created = expectOk(await createStreamOrder(p, { listingId: listing.listingId, buyerId: buyer.id, buyerPublicKeyHex: buyer.publicKeyHex }), 201).item;
    expect(created.status).toBe("payment_pending");
    expect(created).not.toHaveProperty("paymentDueAt");

    const row = await prismaOf(p).streamOrder.findUniqueOrThrow({ where: { id: created.id } });
    const due = new Date(row.createdAt.getTime() + ORDER_TTL_SECONDS * 1000).toISOString();
    expect(await order(created.id)).toEqual({
      id: created.id,
      status: "PAYMENT_PENDING",
      price: { amount: "0.5", currency: "USD" },
      paidAt: null,
      createdAt: row.createdAt.toISOString(),
      updatedAt: row.updatedAt.toISOString(),
      paymentDueAt: due,
    });

    const read = expectOk(await api(p, "GET", `/stream/orders/${created.id}`)).item;
    expect(read).toEqual({ ...created, paymentDueAt: due });
    expect(Object.keys(read).at(-1)).toBe("paymentDueAt");
  });

  it("a paid order: PAID with paidAt as a DateTime; REST says paid; the deadline stays the creation's", async () => {
    const buyer = newBuyer();
    const created = expectOk(await createStreamOrder(p, { listingId: listing.listingId, buyerId: buyer.id, buyerPublicKeyHex: buyer.publicKeyHex }), 201).item;
    const paid = expectOk(await payStreamOrder(p, created.id, { paymentReference: await transferToPayee(p, "0.5") })).item;
    expect(paid.status).toBe("paid");

    const row = await prismaOf(p).streamOrder.findUniqueOrThrow({ where: { id: created.id } });
    const typed = await order(created.id);
    expect(typed.status).toBe("PAID");
    expect(typed.paidAt).toBe(row.paidAt!.toISOString());
    expect(typed.paidAt).toBe(paid.paidAt);
    expect(typed.paymentDueAt).toBe(new Date(row.createdAt.getTime() + ORDER_TTL_SECONDS * 1000).toISOString());
  });
});
