/** Agent pairing rows: the row lock every market write and pairing change takes. */
import { Prisma, type MarketAgentPairing as PairingRow, type MarketMachine } from "../../shared/db/generated/client.js";
import { lockRowById } from "../common/row-lock.repository.js";
import { camelRow, column, decimal, statementOf, type MarketsSql } from "../common/sql.js";
import { MACHINE_COLUMNS } from "../common/machine.guard.js";
import type { OrderRow } from "./order.repository.js";

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

const MACHINE_OF_O = MACHINE_COLUMNS.split(",")
  .map((item) => {
    const [name, as] = item.trim().split(/\s+AS\s+/);
    return `m.${name} AS "m.${(as ?? name!).replace(/"/g, "")}"`;
  })
  .join(", ");

/**
 * The start of every agent write on an order, one statement: the order locked (FOR UPDATE), its machine's row (rule
 * 1) and the pairing `pairingId` (the token's) locked, in that order (the pairing's subquery depends on the order's,
 * so it runs after it), as lockOrder, the guard's read and lockPairing would read them one after another. Each lock
 * answers its row's latest version; the machine is read with the statement's snapshot.
 */
const LOCK_ORDER_WRITE = `SELECT o.*, ${MACHINE_OF_O}, ${pairingColumnsOf("p")}
  FROM (SELECT * FROM market_order WHERE id = $1 FOR UPDATE) o
  LEFT JOIN market_machine m ON m.id = o.machine_id
  LEFT JOIN LATERAL (SELECT * FROM market_agent_pairing WHERE id = $2 AND o.id IS NOT NULL FOR UPDATE) p ON true`;

/** The order (null when there is none), its machine and the pairing, locked as LOCK_ORDER_WRITE says. */
export async function lockOrderWrite(
  tx: MarketsSql,
  orderId: string,
  pairingId: string,
): Promise<{ order: OrderRow; machine: MarketMachine | null; pairing: PairingRow | null } | null> {
  const [row] = await statementOf(tx)<Record<string, unknown>>(LOCK_ORDER_WRITE, [orderId, pairingId]);
  if (!row) return null;
  const { pairing, rest } = pairingOfRow(row);
  const machine: Record<string, unknown> = {};
  const order: Record<string, unknown> = {};
  for (const key in rest) {
    if (key.startsWith("m.")) machine[key.slice(2)] = rest[key];
    else order[key] = rest[key];
  }
  const orderRow = camelRow<OrderRow>(order);
  orderRow.spendAmount = decimal(orderRow.spendAmount);
  return { order: orderRow, machine: machine.id === null || machine.id === undefined ? null : (machine as unknown as MarketMachine), pairing };
}
