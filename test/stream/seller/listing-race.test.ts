/**
 * An order or purchase being created and a deactivation of its listing, interleaved with a barrier over the real
 * routes: the creation is held inside its transaction right after it read the listing (MarketsStore.afterListingRead),
 * the deactivation is sent, and the creation is released. The creation read the listing under a share lock, so the
 * deactivation (FOR UPDATE) waits for it: the order or purchase commits first, the deactivation after it, and a later
 * creation is refused. Exactly one outcome: never an order or purchase committed after its listing's deactivation.
 *
 * On PostgreSQL the test releases the creation only once the deactivation is seen waiting on a lock; embedded PGlite
 * runs one transaction at a time, so there the deactivation queues behind the held transaction by construction.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { holdFirst } from "../../support/barrier.js";
import { waitUntil } from "../../support/wait.js";
import {
  api, createListing, expectMarketsError, expectOk, marketsServices, PLATFORM_START_TIMEOUT_MS, prismaOf, sellerHeaders,
  startMarketsPlatform, type MarketsPlatform,
} from "../helpers.js";
import { buyerCall, createMarket, purchaseBody, type Market } from "../purchases/purchases-helpers.js";

let p: MarketsPlatform;
let m: Market;
beforeAll(async () => {
  p = await startMarketsPlatform();
  m = await createMarket(p, 0, 1, p.demo.payments!.agents[0].privateKey);
}, PLATFORM_START_TIMEOUT_MS);
afterAll(() => p?.close());

const deactivate = (listingId: string) =>
  api(p, "POST", `/machines/${m.seller.machineId}/stream/listings/${listingId}/deactivate`, {}, sellerHeaders(m.seller));

/** Whether a deactivation is waiting on a row lock (PostgreSQL; PGlite serialises transactions instead). */
async function deactivationWaiting(): Promise<boolean> {
  if (p.platform.database!.kind !== "postgres") return true;
  const rows = await prismaOf(p).$queryRaw<Array<{ n: bigint }>>`
    SELECT count(*) AS n FROM pg_stat_activity
    WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%stream_listing%FOR UPDATE%'`;
  return Number(rows[0]!.n) > 0;
}

/** Holds `create` after its listing read, deactivates the listing, releases: both answers, in the order they committed. */
async function race(listingId: string, create: () => ReturnType<typeof api>) {
  const store = marketsServices(p).store;
  const gate = holdFirst();
  store.afterListingRead = (id) => (id === listingId ? gate.pass() : Promise.resolve());
  try {
    const creating = create();
    await gate.entered;
    let deactivated: Awaited<ReturnType<typeof api>> | null = null;
    const deactivating = deactivate(listingId).then((answer) => (deactivated = answer));
    // Released once the deactivation waits for the held creation, or (without the share lock) has already answered.
    await waitUntil(async () => deactivated !== null || (await deactivationWaiting()));
    gate.release();
    return { created: await creating, deactivated: await deactivating };
  } finally {
    store.afterListingRead = null;
  }
}

const eventId = async (kind: string, key: string, id: string) =>
  (await prismaOf(p).marketAuditEvent.findMany({ where: { kind }, orderBy: { id: "asc" } })).find((e: any) => e.data?.[key] === id)?.id ?? null;

describe("creation against a deactivation of its listing", () => {
  it("stream order: created and committed before the deactivation, which follows it; the next order is STREAM_LISTING_INACTIVE", async () => {
    const { listing } = await createListing(p, m.seller, 1);
    const body = { listingId: listing.id, buyerId: "buyer-race", buyerPublicKeyHex: m.buyer.publicKeyHex, payerAddress: `0x${"b0".repeat(20)}` };
    const { created, deactivated } = await race(listing.id, () => api(p, "POST", "/stream/orders", body));
    const order = expectOk(created, 201).item;
    expect(expectOk(deactivated).item.status).toBe("inactive");
    const createdEvent = await eventId("stream.order.created", "orderId", order.id);
    const deactivatedEvent = await eventId("stream.listing.deactivated", "listingId", listing.id);
    expect(createdEvent).not.toBeNull();
    expect(deactivatedEvent).not.toBeNull();
    expect(BigInt(createdEvent!) < BigInt(deactivatedEvent!)).toBe(true);
    expect(await prismaOf(p).streamOrder.count({ where: { listingId: listing.id } })).toBe(1);
    expectMarketsError(await api(p, "POST", "/stream/orders", body), 409, "STREAM_LISTING_INACTIVE");
    expect(await prismaOf(p).streamOrder.count({ where: { listingId: listing.id } })).toBe(1);
  });

  it("purchase: created and committed before the deactivation, which follows it; the next purchase is PURCHASE_LISTING_INACTIVE", async () => {
    const { listing } = await createListing(p, m.seller, 1);
    const market = { ...m, listingId: listing.id };
    const { created, deactivated } = await race(listing.id, () => buyerCall(p, market, "POST", "/purchases", purchaseBody(market)));
    const purchase = expectOk(created, 201).item;
    expect(expectOk(deactivated).item.status).toBe("inactive");
    const createdEvent = await eventId("stream.purchase.created", "purchaseId", purchase.id);
    const deactivatedEvent = await eventId("stream.listing.deactivated", "listingId", listing.id);
    expect(createdEvent).not.toBeNull();
    expect(deactivatedEvent).not.toBeNull();
    expect(BigInt(createdEvent!) < BigInt(deactivatedEvent!)).toBe(true);
    expect(await prismaOf(p).streamPurchase.count({ where: { listingId: listing.id } })).toBe(1);
    expectMarketsError(await buyerCall(p, market, "POST", "/purchases", purchaseBody(market)), 409, "PURCHASE_LISTING_INACTIVE");
    expect(await prismaOf(p).streamPurchase.count({ where: { listingId: listing.id } })).toBe(1);
  });
});
