/** Agent pairing rows: the row lock every market write and pairing change takes. */
import { Prisma, type MarketAgentPairing as PairingRow } from "../../shared/db/generated/client.js";
import { lockRowById } from "../common/row-lock.repository.js";
import { column, type MarketsSql } from "../common/sql.js";

/**
 * The pairing, its row locked until the transaction ends (`SELECT * … FOR UPDATE`, read and locked in one statement): a PATCH, revoke, rotation or
 * another order of the same pairing, on any instance, waits for this transaction. The daily limit's sum
 * (orders/order.repository.ts `withinDailyLimit`) is safe because of this lock.
 */
export async function lockPairing(tx: MarketsSql, pairingId: string): Promise<PairingRow | null> {
  return lockRowById<PairingRow>(tx, "market_agent_pairing", pairingId);
}

/** Every column of market_agent_pairing of `alias` under its Prisma field name prefixed `p.`, for a statement that reads more. */
export function pairingColumnsOf(alias: string): string {
  return Object.values(Prisma.MarketAgentPairingScalarFieldEnum)
    .map((field) => `${alias}.${column(field)} AS "p.${field}"`)
    .join(", ");
}

/** The pairing of a row read with `pairingColumnsOf` (null when the statement found none), and the row's other columns. */
export function pairingOfRow(row: Record<string, unknown>): { pairing: PairingRow | null; rest: Record<string, unknown> } {
  const pairing: Record<string, unknown> = {};
  const rest: Record<string, unknown> = {};
  for (const key in row) {
    if (key.startsWith("p.")) pairing[key.slice(2)] = row[key];
    else rest[key] = row[key];
  }
  return { pairing: pairing.id === null || pairing.id === undefined ? null : (pairing as unknown as PairingRow), rest };
}
