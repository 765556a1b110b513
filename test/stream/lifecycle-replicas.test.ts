/**
 * The lifecycle job on two replicas: two platforms (each its own process state, connection pool and sweep) on one
 * PostgreSQL database and one chain, sharing one injected clock. Both sweeps run at once over the same due stream
 * orders and purchases: every due row is expired exactly once, with exactly one audit event, and the two sweeps'
 * counts add up to the rows. Orders are created through both replicas, purchases through A (a pairing token is signed
 * with its instance's secret). PostgreSQL only (embedded PGlite serves one process).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addressEnvName, CONTRACT_NAMES } from "../../subgraphs/shared/config.js";
import { DEV_FAUCET_KEY, DEV_TOTP_KEY } from "../../subgraphs/shared/config/ratings.js";
import { SWEEP_GRACE_MS } from "../../subgraphs/markets/common/payment.expiry.js";
import { manualClock } from "../support/clock.js";
import { POSTGRES_SKIP_MESSAGE, usesPostgres } from "../support/db.js";
import {
  createStreamOrder, expectOk, marketsServices, newBuyer, PLATFORM_START_TIMEOUT_MS, prismaOf, seedListing, startMarketsPlatform, streamPayer,
  type MarketsPlatform, type SeededListing,
} from "./orders/orders-helpers.js";
import { buyerCall, createMarket, purchaseBody, type Market } from "./purchases/purchases-helpers.js";

const TTL = { STREAM_ORDER_PAYMENT_TTL_SECONDS: "60", STREAM_PURCHASE_PAYMENT_TTL_SECONDS: "60" };

describe.skipIf(!usesPostgres)(`expiry on two replicas of one PostgreSQL database (${usesPostgres ? "PostgreSQL" : POSTGRES_SKIP_MESSAGE})`, () => {
  const clock = manualClock();
  let a: MarketsPlatform;
  let b: MarketsPlatform;
  let m: Market;
  let listing: SeededListing;

  beforeAll(async () => {
    a = await startMarketsPlatform(TTL, { clock });
    const addresses = Object.fromEntries(CONTRACT_NAMES.map((name) => [addressEnvName(name), a.platform.chain!.addresses[name]!]));
    b = await startMarketsPlatform({
      ...TTL,
      ...addresses,
      DATABASE_URL: a.databaseUrl!,
      CHAIN_RPC_URL: a.platform.chain!.rpcUrl,
      FAUCET_PRIVATE_KEY: DEV_FAUCET_KEY,
      FAUCET_TOTP_KEY: DEV_TOTP_KEY,
    }, { clock });
    m = await createMarket(a, 0, 1, a.demo.payments!.agents[0].privateKey);
    listing = await seedListing(a, m.seller, { amount: "0.02" });
  }, PLATFORM_START_TIMEOUT_MS);
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it("both replicas sweep at once: each due order and purchase expires once, with one audit event", async () => {
    const orders: string[] = [];
    for (let i = 0; i < 12; i += 1) {
      const buyer = newBuyer();
      orders.push(expectOk(await createStreamOrder(i % 2 === 0 ? a : b, { listingId: listing.listingId, buyerId: buyer.id, buyerPublicKeyHex: buyer.publicKeyHex, payerAddress: streamPayer(a) }), 201).item.id);
    }
    const purchases: string[] = [];
    for (let i = 0; i < 4; i += 1) purchases.push(expectOk(await buyerCall(a, m, "POST", "/purchases", purchaseBody(m)), 201).item.id);
    const prisma = prismaOf(a);
    expect(await prisma.streamPurchase.count({ where: { id: { in: purchases }, status: "payment_pending" } })).toBe(purchases.length);

    clock.advance(60_000 + SWEEP_GRACE_MS);
    const [fromA, fromB] = await Promise.all([marketsServices(a).lifecycle.run(), marketsServices(b).lifecycle.run()]);
    expect(fromA.streamOrdersExpired + fromB.streamOrdersExpired).toBe(orders.length);
    expect(fromA.purchasesExpired + fromB.purchasesExpired).toBe(purchases.length);

    expect(await prisma.streamOrder.count({ where: { id: { in: orders }, status: "expired" } })).toBe(orders.length);
    expect(await prisma.streamPurchase.count({ where: { id: { in: purchases }, status: "expired" } })).toBe(purchases.length);
    const events = await prisma.marketAuditEvent.findMany({ where: { kind: { in: ["stream.order.expired", "stream.purchase.expired"] } } });
    const perRow = new Map<string, number>();
    for (const e of events as any[]) {
      const id = e.data.orderId ?? e.data.purchaseId;
      perRow.set(id, (perRow.get(id) ?? 0) + 1);
    }
    for (const id of [...orders, ...purchases]) expect([id, perRow.get(id)]).toEqual([id, 1]);
    for (const e of events as any[]) expect(e.data).toMatchObject({ via: "sweep", before: { status: "payment_pending" }, after: { status: "expired" } });

    // Nothing is left for either replica.
    const again = await Promise.all([marketsServices(a).lifecycle.run(), marketsServices(b).lifecycle.run()]);
    for (const counts of again) expect([counts.streamOrdersExpired, counts.purchasesExpired]).toEqual([0, 0]);
    expect(await prisma.marketAuditEvent.count({ where: { kind: { in: ["stream.order.expired", "stream.purchase.expired"] } } })).toBe(events.length);
  });
});
