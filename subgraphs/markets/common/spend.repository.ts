/**
 * The day's spend, one sum for every limit that reads it: a pairing's delegation policy (dailySpendLimit) and a
 * machine's `spend` policies (dailyLimit). It counts, for the UTC day of `now`, the market orders that were not
 * cancelled and the stream purchases that were not failed, cancelled or expired, of one pairing or of every pairing
 * of one machine (the buying machine: the pairing's, not the seller's). The database keeps those sums per pairing,
 * UTC day and currency (`market_spend_day`, written by triggers in the same transaction as each order or purchase,
 * docs/database.md), so a limit reads one row per pairing and currency, not every spend of the day.
 *
 * The caller holds the lock that serialises the spends the sum covers: the pairing's row lock
 * (orders/pairing.repository.ts `lockPairing`, taken by PairingService.authenticate) for a pairing's sum, and the
 * machine's row lock (`lockMachineSpend`) for a machine's. Two spends, on any instance, then never pass on the same sum.
 */
import { Prisma } from "../../shared/db/generated/client.js";
import { query, type MarketsSql } from "./sql.js";

export type SpendScope = { pairingId: string } | { machineId: string };

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
  const day = now.toISOString().slice(0, 10);
  const spent =
    "pairingId" in scope
      ? Prisma.sql`SELECT SUM(d.amount) FROM market_spend_day d WHERE d.pairing_id = ${scope.pairingId} AND d.day >= ${day}::date`
      : Prisma.sql`SELECT SUM(d.amount) FROM market_spend_day d JOIN market_agent_pairing p ON p.id = d.pairing_id
        WHERE p.machine_id = ${scope.machineId} AND d.day >= ${day}::date`;
  const inCurrency = currency === null ? Prisma.empty : Prisma.sql` AND d.currency = ${currency}`;
  return Prisma.sql`(COALESCE((${spent}${inCurrency}), 0) + ${amount}::numeric <= ${limit.toString()}::numeric)`;
}

/**
 * The machine's row, locked until the transaction ends: spends of all its pairings under a machine limit queue here.
 * `FOR NO KEY UPDATE`, so rows that merely reference the machine (audit events, orders) are still written meanwhile.
 */
export async function lockMachineSpend(tx: MarketsSql, machineId: string): Promise<void> {
  await query(tx, Prisma.sql`SELECT 1 FROM market_machine WHERE id = ${machineId} FOR NO KEY UPDATE`);
}
