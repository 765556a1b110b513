/**
 * The daily spend totals (`market_spend_day`, docs/database.md "Daily spend totals") always equal the sum the daily
 * limits were defined by: per pairing, UTC day of `created_at` and upper-case currency ('' for none), the market
 * orders that are not cancelled and the stream purchases of a pairing that are not failed, cancelled or expired.
 * The migration's backfill computes them from the rows already written; afterwards its triggers keep them through
 * 600 random inserts, updates (status, amount, currency, pairing, day) and deletes, a rolled-back transaction among
 * them. The sum below is the reference, written out apart from the migration. The lifecycle's sweep expires a batch of
 * purchases in the totals' key order (pairing, day, currency), whatever their age, so that two sweeps on different
 * replicas take the totals' row locks in one order and cannot deadlock. On PGlite, and on PostgreSQL with
 * DATABASE_URL.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SWEEP_GRACE_MS } from "../../subgraphs/markets/common/payment.expiry.js";
import { sweepPurchases } from "../../subgraphs/markets/stream/purchases/purchase.expiry.js";
import { runMigrations } from "../../subgraphs/shared/db/migrate.js";
import { loadMigrations } from "../../subgraphs/shared/db/migrations.js";
import { databaseTargets, openTestDatabase } from "../support/db.js";
import { seeded, type Seeded } from "../support/seeded.js";
import { freshDatabase, type FreshDatabase } from "./fresh-database.js";

const MIGRATION = "20261127200000_daily_spend_totals";

/** Every (pairing, day, currency) whose total differs from the reference sum (zero totals and no rows alike). */
const MISMATCHES = `
  WITH reference AS (
    SELECT pairing_id, day, currency, SUM(amount) AS amount FROM (
      SELECT agent_pairing_id AS pairing_id, (created_at AT TIME ZONE 'UTC')::date AS day,
        COALESCE(upper(spend_currency), '') AS currency, spend_amount AS amount
      FROM market_order WHERE status <> 'cancelled'
      UNION ALL
      SELECT agent_pairing_id, (created_at AT TIME ZONE 'UTC')::date, COALESCE(upper(currency), ''), amount::numeric
      FROM stream_purchase WHERE agent_pairing_id IS NOT NULL AND status NOT IN ('failed', 'cancelled', 'expired')
    ) spends GROUP BY 1, 2, 3)
  SELECT COALESCE(r.pairing_id, t.pairing_id) AS pairing_id, COALESCE(r.day, t.day)::text AS day,
    COALESCE(r.currency, t.currency) AS currency, r.amount::text AS reference, t.amount::text AS total
  FROM reference r FULL JOIN market_spend_day t USING (pairing_id, day, currency)
  WHERE COALESCE(r.amount, 0) <> COALESCE(t.amount, 0)`;

const PAIRINGS = ["pair_a", "pair_b", "pair_c"];
const DAYS = ["2026-11-25T23:59:59.999Z", "2026-11-26T00:00:00Z", "2026-11-26T12:00:00Z", "2026-11-27T08:00:00Z"];
const ORDER_STATUSES = ["created", "ready", "executing", "completed", "failed", "cancelled"];
const PURCHASE_STATUSES = ["delivery_reserving", "paid", "completed", "failed", "cancelled", "expired"];
const CURRENCIES = ["USD", "usd", "EUR", null];

/** A decimal with up to 18 fractional digits, as orders and purchases store them. */
function amount(random: Seeded): string {
  const whole = random.below(1000);
  return random.chance(0.3) ? String(whole) : `${whole}.${String(random.below(1e9)).padStart(9, "0")}${String(random.below(1e9)).padStart(9, "0")}`;
}

const text = (value: string | null) => (value === null ? "NULL" : `'${value}'`);

function insertOrder(id: string, random: Seeded): string {
  const at = random.pick(DAYS);
  return `INSERT INTO market_order (id, machine_id, agent_pairing_id, service_id, skill_key, provider_key, service_type, operation, execution_mode,
      integration_status, status, input, payment, service_snapshot, spend_amount, spend_currency, created_at, updated_at)
    VALUES ('${id}', 'mach_1', '${random.pick(PAIRINGS)}', 'svc', 'skill', 'prov', 'api', 'op', 'sync', 'live', '${random.pick(ORDER_STATUSES)}',
      '{}', '{}', '{}', ${amount(random)}, ${text(random.pick(CURRENCIES))}, '${at}', '${at}')`;
}

function insertPurchase(id: string, random: Seeded): string {
  const at = random.pick(DAYS);
  return `INSERT INTO stream_purchase (id, listing_id, machine_id, agent_pairing_id, buyer_id, buyer_public_key_hex, buyer_capabilities, chunk_ids,
      status, amount, currency, created_at, updated_at)
    VALUES ('${id}', 'slst_1', 'mach_2', ${text(random.chance(0.2) ? null : random.pick(PAIRINGS))}, 'did', 'ab', '[]', '{}',
      '${random.pick(PURCHASE_STATUSES)}', '${amount(random)}', '${random.pick(CURRENCIES) ?? "USD"}', '${at}', '${at}')`;
}

/** A random change to an existing order or purchase: a field the totals depend on, one they do not, or a delete. */
function change(random: Seeded, orders: string[], purchases: string[]): string {
  const order = random.chance(0.5);
  const rows = order ? orders : purchases;
  const id = rows[random.below(rows.length)]!;
  const table = order ? "market_order" : "stream_purchase";
  switch (random.below(7)) {
    case 0:
      rows.splice(rows.indexOf(id), 1);
      return `DELETE FROM ${table} WHERE id = '${id}'`;
    case 1:
      return `UPDATE ${table} SET ${order ? "spend_amount" : "amount"} = '${amount(random)}' WHERE id = '${id}'`;
    case 2:
      return `UPDATE ${table} SET ${order ? "spend_currency" : "currency"} = ${text(order ? random.pick(CURRENCIES) : (random.pick(CURRENCIES) ?? "EUR"))} WHERE id = '${id}'`;
    case 3:
      return `UPDATE ${table} SET agent_pairing_id = ${text(!order && random.chance(0.3) ? null : random.pick(PAIRINGS))} WHERE id = '${id}'`;
    case 4:
      return `UPDATE ${table} SET created_at = '${random.pick(DAYS)}' WHERE id = '${id}'`;
    case 5:
      return `UPDATE ${table} SET updated_at = now() WHERE id = '${id}'`;
    default:
      return `UPDATE ${table} SET status = '${random.pick(order ? ORDER_STATUSES : PURCHASE_STATUSES)}' WHERE id = '${id}'`;
  }
}

describe.each(databaseTargets())("daily spend totals on %s", (target) => {
  let database: FreshDatabase;
  beforeEach(async () => {
    database = await freshDatabase(target);
  });
  afterEach(async () => {
    await database.close();
  });

  /** The totals do not depend on which status moves are legal: the lifecycle triggers are set aside to draw any. */
  const anyStatus = () =>
    database.session.exec(`ALTER TABLE market_order DISABLE TRIGGER market_order_transition;
      ALTER TABLE stream_purchase DISABLE TRIGGER stream_purchase_transition`);
  const mismatches = () => database.session.query<Record<string, string | null>>(MISMATCHES);
  const totals = async () => Number((await database.session.query<{ n: string }>("SELECT count(*) AS n FROM market_spend_day WHERE amount <> 0"))[0]!.n);

  it("the migration fills them from the orders and purchases already written", async () => {
    const all = await loadMigrations();
    const index = all.findIndex((m) => m.name === MIGRATION);
    expect(index).toBeGreaterThan(0);
    await runMigrations(database.session, all.slice(0, index));
    await anyStatus();
    const random = seeded(7);
    for (let i = 0; i < 40; i++) await database.session.query(insertOrder(`ord_${i}`, random));
    for (let i = 0; i < 40; i++) await database.session.query(insertPurchase(`spur_${i}`, random));

    await runMigrations(database.session, all.slice(index, index + 1));
    expect(await mismatches()).toEqual([]);
    expect(await totals()).toBeGreaterThan(10);
    // Deleting every row takes every total back to zero.
    await database.session.exec(`DELETE FROM market_order; DELETE FROM stream_purchase`);
    expect(await totals()).toBe(0);
  });

  it("the triggers keep them through random writes, and a rolled-back write leaves them as they were", async () => {
    await runMigrations(database.session, await loadMigrations());
    await anyStatus();
    const random = seeded(11);
    const orders: string[] = [];
    const purchases: string[] = [];
    let checked = 0;
    for (let step = 0; step < 600; step++) {
      const insert = orders.length < 5 || purchases.length < 5 || random.chance(0.3);
      if (insert && random.chance(0.5)) {
        orders.push(`ord_${step}`);
        await database.session.query(insertOrder(`ord_${step}`, random));
      } else if (insert) {
        purchases.push(`spur_${step}`);
        await database.session.query(insertPurchase(`spur_${step}`, random));
      } else {
        await database.session.query(change(random, orders, purchases));
      }
      if (step % 25 === 24) {
        expect(await mismatches(), `after step ${step}`).toEqual([]);
        checked += 1;
      }
    }
    expect(checked).toBe(24);
    expect(await totals()).toBeGreaterThan(10);

    const before = await database.session.query("SELECT * FROM market_spend_day ORDER BY pairing_id, day, currency");
    await database.session.exec(`BEGIN; ${insertOrder("ord_rolled_back", random)}; UPDATE market_order SET status = 'cancelled'; ROLLBACK`);
    expect(await database.session.query("SELECT * FROM market_spend_day ORDER BY pairing_id, day, currency")).toEqual(before);
    expect(await mismatches()).toEqual([]);
  });
});

describe.each(databaseTargets())("the purchase sweep and the totals on %s", (target) => {
  it("expires a batch in the totals' key order, not by age, and every total follows", async () => {
    const opened = await openTestDatabase(target);
    try {
      const prisma = opened.db.prisma;
      const now = new Date("2026-11-27T12:00:00Z");
      // Oldest first the batch alternates pairings and currencies; the sweep must take them grouped by the key.
      const due = [
        ["spur_1", "pair_q", "USD", "2026-11-27T10:00:00Z"],
        ["spur_2", "pair_p", "USD", "2026-11-27T10:00:01Z"],
        ["spur_3", "pair_q", "EUR", "2026-11-27T10:00:02Z"],
        ["spur_4", "pair_p", "EUR", "2026-11-27T10:00:03Z"],
        ["spur_5", "pair_q", "USD", "2026-11-27T10:00:04Z"],
        ["spur_6", "pair_p", "USD", "2026-11-27T10:00:05Z"],
      ];
      for (const [id, pairing, currency, at] of due) {
        await prisma.$executeRawUnsafe(`INSERT INTO stream_purchase (id, listing_id, machine_id, agent_pairing_id, buyer_id, buyer_public_key_hex,
            buyer_capabilities, chunk_ids, status, amount, currency, created_at, updated_at)
          VALUES ('${id}', 'slst_1', 'mach_2', '${pairing}', 'did', 'ab', '[]', '{}', 'delivery_reserving', '2', '${currency}', '${at}', '${at}')`);
        await prisma.$executeRawUnsafe(`UPDATE stream_purchase SET status = 'payment_pending' WHERE id = '${id}'`);
      }
      const totals = () =>
        prisma.$queryRawUnsafe<Array<{ pairing_id: string; currency: string; amount: string }>>(
          "SELECT pairing_id, currency, amount::text FROM market_spend_day ORDER BY pairing_id, currency",
        );
      expect((await totals()).map((t) => [t.pairing_id, t.currency, Number(t.amount)])).toEqual([
        ["pair_p", "EUR", 2],
        ["pair_p", "USD", 4],
        ["pair_q", "EUR", 2],
        ["pair_q", "USD", 4],
      ]);

      const ttlSeconds = 60;
      const expired = await prisma.$transaction((tx) => sweepPurchases(tx, new Date(now.getTime() + SWEEP_GRACE_MS), ttlSeconds));
      expect(expired).toBe(6);
      const events = await prisma.$queryRawUnsafe<Array<{ purchase: string }>>(
        "SELECT data->>'purchaseId' AS purchase FROM market_audit_event WHERE kind = 'stream.purchase.expired' ORDER BY id",
      );
      expect(events.map((e) => e.purchase)).toEqual(["spur_4", "spur_2", "spur_6", "spur_3", "spur_1", "spur_5"]);
      expect((await totals()).map((t) => Number(t.amount))).toEqual([0, 0, 0, 0]);
    } finally {
      await opened.dispose();
    }
  });
});
