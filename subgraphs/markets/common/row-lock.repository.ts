/**
 * Read and lock a row in one statement (`SELECT * … FOR UPDATE`) instead of a lock statement followed by a read:
 * one round trip on every locked write. The row comes back under its Prisma field names (the columns are the field
 * names in snake_case, `@map("machine_id")` for `machineId`) with the model read's value types (Decimal, Date,
 * parsed JSON, bytes), in either kind of transaction (common/sql.ts).
 */
import { camelRow, decimal, statementOf, type MarketsSql } from "./sql.js";

/** The statement per table: one fixed text each, so it is prepared once per connection. */
const LOCK_TEXT = {
  market_order: `SELECT * FROM "market_order" WHERE id = $1 FOR UPDATE`,
  market_agent_pairing: `SELECT * FROM "market_agent_pairing" WHERE id = $1 FOR UPDATE`,
} as const;

/** The row of `table` with primary key `id`, locked until the transaction ends; null when there is none. */
export async function lockRowById<T>(tx: MarketsSql, table: keyof typeof LOCK_TEXT, id: string): Promise<T | null> {
  const rows = await statementOf(tx)<Record<string, unknown>>(LOCK_TEXT[table], [id]);
  const row = rows[0];
  if (!row) return null;
  const out = camelRow<Record<string, unknown>>(row);
  if (table === "market_order") out.spendAmount = decimal(out.spendAmount);
  return out as T;
}
