/**
 * The spent transactions' migration fills the table from the payments recorded before it (docs/markets-payments.md
 * "Spent transactions"): a market payment, a stream order and a stream purchase with a transaction each get their row
 * (the log index their stored proof names, else -1), a transaction that paid twice before the table keeps one row, and
 * a purchase's payer is its pairing's agent. On PGlite, and on PostgreSQL with DATABASE_URL.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runMigrations } from "../../subgraphs/shared/db/migrate.js";
import { loadMigrations } from "../../subgraphs/shared/db/migrations.js";
import { databaseTargets } from "../support/db.js";
import { freshDatabase, type FreshDatabase } from "./fresh-database.js";

const MIGRATION = "20261126173200_spent_transactions";
const hash = (byte: string) => `0x${byte.repeat(32)}`;

describe.each(databaseTargets())("spent transactions backfill on %s", (target) => {
  let database: FreshDatabase;
  beforeEach(async () => {
    database = await freshDatabase(target);
  });
  afterEach(async () => {
    await database.close();
  });

  it("records the transfers existing payments rest on, one row per transfer, and binds purchases to their agent", async () => {
    const all = await loadMigrations();
    const index = all.findIndex((m) => m.name === MIGRATION);
    expect(index).toBeGreaterThan(0);
    await runMigrations(database.session, all.slice(0, index));
    const q = (sql: string) => database.session.query(sql);
    const now = "'2026-11-26T12:00:00Z'";
    await q(`INSERT INTO market_agent_pairing (id, machine_id, status, agent_address, agent_provider, agent_role, delegation_policy, delegation_policy_hash, created_at, updated_at)
      VALUES ('pair_1', 'mach_1', 'active', '0x00000000000000000000000000000000000000A1', 'anthropic', 'buyer', '{}', 'h', ${now}, ${now})`);
    const payment = (id: string, tx: string | null, details: string) =>
      q(`INSERT INTO market_payment (id, order_id, machine_id, rail, status, required, chain_id, tx_hash, details, created_at, updated_at)
        VALUES ('${id}', 'ord_${id}', 'mach_1', 'wallet', 'intent_created', true, '31337', ${tx ? `'${tx}'` : "NULL"}, '${details}', ${now}, ${now})`);
    await payment("pay_rpc", hash("AA"), '{"proof":{"mode":"rpc","logIndex":3}}');
    await payment("pay_x402", hash("bb"), '{"settlement":{"logIndex":1}}');
    await payment("pay_escrow", hash("cc"), '{"escrowLock":{"state":"locked"}}');
    await payment("pay_none", null, "{}");
    await q(`INSERT INTO stream_order (id, listing_id, machine_id, buyer_id, buyer_public_key_hex, chunk_ids, status, price_amount, price_currency, payment_proof, payment_tx_hash, created_at, updated_at)
      VALUES ('sord_1', 'slst_1', 'mach_2', 'buyer', 'ab', '{}', 'payment_pending', '1', 'USD', '{"chainId":"31337","txHash":"${hash("dd")}","logIndex":0}', '${hash("dd")}', ${now}, ${now}),
             ('sord_2', 'slst_1', 'mach_2', 'buyer', 'ab', '{}', 'payment_pending', '1', 'USD', '{"chainId":"31337","txHash":"${hash("aa")}","logIndex":3}', '${hash("aa")}', ${now}, ${now}),
             ('sord_3', 'slst_1', 'mach_2', 'buyer', 'ab', '{}', 'payment_pending', '1', 'USD', NULL, NULL, ${now}, ${now})`);
    await q(`INSERT INTO stream_purchase (id, listing_id, machine_id, agent_pairing_id, buyer_id, buyer_public_key_hex, buyer_capabilities, chunk_ids, status, amount, currency, payment_proof, payment_tx_hash, created_at, updated_at)
      VALUES ('spur_1', 'slst_1', 'mach_2', 'pair_1', 'did', 'ab', '[]', '{}', 'delivery_reserving', '1', 'USD', '{"chainId":"31337","details":{"logIndex":2}}', '${hash("ee")}', ${now}, ${now}),
             ('spur_2', 'slst_1', 'mach_2', NULL, 'did', 'ab', '[]', '{}', 'delivery_reserving', '1', 'USD', NULL, NULL, ${now}, ${now})`);

    await runMigrations(database.session, all.slice(index, index + 1));
    const rows = await database.session.query<{ chain_id: string; tx_hash: string; log_index: number; kind: string; paid_id: string }>(
      "SELECT chain_id, tx_hash, log_index, kind, paid_id FROM spent_transaction ORDER BY paid_id",
    );
    // The order that reused the market payment's transfer (0xaa…, log 3) before the table existed keeps no row.
    expect(rows.map((r) => [r.chain_id, r.tx_hash, Number(r.log_index), r.kind, r.paid_id])).toEqual([
      ["31337", hash("cc"), -1, "market_payment", "pay_escrow"],
      ["31337", hash("aa"), 3, "market_payment", "pay_rpc"],
      ["31337", hash("bb"), 1, "market_payment", "pay_x402"],
      ["31337", hash("dd"), 0, "stream_order", "sord_1"],
      ["31337", hash("ee"), 2, "stream_purchase", "spur_1"],
    ]);
    const purchases = await database.session.query<{ id: string; payer_address: string | null }>("SELECT id, payer_address FROM stream_purchase ORDER BY id");
    expect(purchases).toEqual([
      { id: "spur_1", payer_address: "0x00000000000000000000000000000000000000A1" },
      { id: "spur_2", payer_address: null },
    ]);
  });
});
