/**
 * Read and lock a row in one statement (`SELECT * … FOR UPDATE`) instead of a lock statement followed by a read:
 * one round trip and one Prisma query less on every locked write. The raw row comes back with the database's column
 * names, which for these tables are the Prisma field names in snake_case (`@map("machine_id")` for `machineId`);
 * Prisma's raw-query decoding gives the same value types as the model read (Decimal, Date, parsed JSON, bytes).
 */
import type { MarketsTx } from "./audit.repository.js";

function camel(column: string): string {
  return column.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

/** The row of `table` with primary key `id`, locked until the transaction ends; null when there is none. */
export async function lockRowById<T>(tx: MarketsTx, table: "market_order" | "market_agent_pairing", id: string): Promise<T | null> {
  const rows = await tx.$queryRawUnsafe<Record<string, unknown>[]>(`SELECT * FROM "${table}" WHERE id = $1 FOR UPDATE`, id);
  const row = rows[0];
  if (!row) return null;
  const out: Record<string, unknown> = {};
  for (const [column, value] of Object.entries(row)) out[camel(column)] = value;
  return out as T;
}
