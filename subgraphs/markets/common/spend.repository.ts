/**
 * The day's spend, one sum for every limit that reads it: a pairing's delegation policy (dailySpendLimit) and a
 * machine's `spend` policies (dailyLimit). It counts, for the UTC day of `now`, the market orders that were not
 * cancelled and the stream purchases that were not failed, cancelled or expired, of one pairing or of every pairing
 * of one machine (the buying machine: the pairing's, not the seller's), summed in the database.
 *
 * The caller holds the lock that serialises the spends the sum covers: the pairing's row lock
 * (orders/pairing.repository.ts `lockPairing`, taken by PairingService.authenticate) for a pairing's sum, and the
 * machine's row lock (`lockMachineSpend`) for a machine's. Two spends, on any instance, then never pass on the same sum.
 */
import { Prisma } from "../../shared/db/generated/client.js";
import { query, type MarketsSql } from "./sql.js";

export type SpendScope = { pairingId: string } | { machineId: string };

/** Purchase statuses whose amount is not spent: no payment was or will be taken. */
const UNSPENT_PURCHASE = ["failed", "cancelled", "expired"];

/** Would `amount` keep the scope's spend of the day within `limit`? `currency` (upper case) counts that currency only. */
export async function withinDailySpend(
  tx: MarketsSql,
  scope: SpendScope,
  amount: string,
  limit: number,
  now: Date,
  currency: string | null = null,
): Promise<boolean> {
  const [row] = await query<{ ok: boolean }>(tx, Prisma.sql`SELECT ${dailySpendWithin(scope, amount, limit, now, currency)} AS ok`);
  return row!.ok;
}

/**
 * `withinDailySpend`'s test as a boolean SQL expression, for a statement that weighs the sum and acts on it at once
 * (the market order's INSERT). Its text depends only on the scope's kind and whether `currency` is given.
 */
export function dailySpendWithin(scope: SpendScope, amount: string, limit: number, now: Date, currency: string | null = null): Prisma.Sql {
  const dayStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  const who = "pairingId" in scope ? Prisma.sql`p.id = ${scope.pairingId}` : Prisma.sql`p.machine_id = ${scope.machineId}`;
  const orderCurrency = currency === null ? Prisma.empty : Prisma.sql`AND upper(o.spend_currency) = ${currency}`;
  const purchaseCurrency = currency === null ? Prisma.empty : Prisma.sql`AND upper(s.currency) = ${currency}`;
  return Prisma.sql`(COALESCE((
        SELECT SUM(o.spend_amount) FROM market_order o JOIN market_agent_pairing p ON p.id = o.agent_pairing_id
        WHERE ${who} AND o.created_at >= ${dayStart} AND o.status <> 'cancelled' ${orderCurrency}), 0)
      + COALESCE((
        SELECT SUM(s.amount::numeric) FROM stream_purchase s JOIN market_agent_pairing p ON p.id = s.agent_pairing_id
        WHERE ${who} AND s.created_at >= ${dayStart} AND s.status NOT IN (${Prisma.join(UNSPENT_PURCHASE)}) ${purchaseCurrency}), 0)
      + ${amount}::numeric <= ${limit.toString()}::numeric)`;
}

/**
 * The machine's row, locked until the transaction ends: spends of all its pairings under a machine limit queue here.
 * `FOR NO KEY UPDATE`, so rows that merely reference the machine (audit events, orders) are still written meanwhile.
 */
export async function lockMachineSpend(tx: MarketsSql, machineId: string): Promise<void> {
  await query(tx, Prisma.sql`SELECT 1 FROM market_machine WHERE id = ${machineId} FOR NO KEY UPDATE`);
}
