/**
 * The statements of a market order's creation (orders/order.service.ts `create`), in its SQL transaction:
 * - `readCreation`: in one read, everything the checks up to the pairing's weigh: the machine row (rule 1), the
 *   search's quote, the quoted service, the policies that apply to the machine, and the token's pairing, its row
 *   locked (FOR UPDATE) in the same statement.
 * - `insertOrder`: the order and its market.order.created audit event in one statement. Given the pairing's daily
 *   limit, the same statement first weighs the pairing's spend of the day (common/spend.repository.ts) and writes
 *   nothing when the order would pass it. The statement runs after the pairing's row lock was taken by an earlier
 *   statement (readCreation's), so its snapshot holds every spend of the pairing committed before (a sum read in the statement that
 *   waits for the lock would not).
 */
import { Prisma, type MarketAgentPairing, type MarketMachine, type MarketsService } from "../../shared/db/generated/client.js";
import type { AuditActor } from "../common/audit.repository.js";
import { MACHINE_COLUMNS } from "../common/machine.guard.js";
import { camelRow, decimal, query, statementOf, type MarketsSql } from "../common/sql.js";
import { dailySpendWithin } from "../common/spend.repository.js";
import { APPLICABLE_POLICIES_OF_M, parsedPolicies, type ApplicablePolicy } from "../policies/policy.enforcement.js";
import type { StoredQuote } from "../work/catalogue.service.js";
import type { OrderRow } from "./order.repository.js";
import { pairingColumnsOf, pairingOfRow } from "./pairing.repository.js";

export interface Creation {
  /** Null when there is no such machine. */
  machine: MarketMachine | null;
  /** Null when there is no such search; `quote` null when the search has no such quote. */
  search: { machineId: string; expiresAt: Date; quote: StoredQuote | null } | null;
  /** The quoted service's row; null when there is none (or no quote). */
  service: MarketsService | null;
  policies: ApplicablePolicy[];
  /** The pairing named, locked; null when there is none (or no machine). */
  pairing: MarketAgentPairing | null;
}

const READ_CREATION = `SELECT m.*, se.machine_id AS "searchMachineId", se.expires_at AS "searchExpiresAt", q.quote, row_to_json(s) AS service,
    ${APPLICABLE_POLICIES_OF_M} AS policies, ${pairingColumnsOf("p")}
  FROM (SELECT ${MACHINE_COLUMNS} FROM market_machine WHERE id = $1) m
  LEFT JOIN LATERAL (SELECT * FROM market_agent_pairing WHERE id = $4 FOR UPDATE) p ON true
  LEFT JOIN markets_search se ON se.id = $2
  LEFT JOIN LATERAL (
    SELECT x.value AS quote FROM jsonb_array_elements(se.quotes) WITH ORDINALITY AS x(value, ord) WHERE x.value->>'id' = $3 ORDER BY x.ord LIMIT 1
  ) q ON true
  LEFT JOIN markets_service s ON s.id = q.quote->>'serviceId'`;

/**
 * The machine, the search's quote, its service and the machine's policies (see the file's comment); with the
 * pairing `pairingId` (the token's, null without one) locked (FOR UPDATE).
 */
export async function readCreation(tx: MarketsSql, machineId: string, searchId: string | null, quoteId: string | null, pairingId: string | null): Promise<Creation> {
  const [found] = await statementOf(tx)<Record<string, unknown>>(READ_CREATION, [machineId, searchId, quoteId, pairingId]);
  if (!found) return { machine: null, search: null, service: null, policies: [], pairing: null };
  const { pairing, rest: row } = pairingOfRow(found);
  const { searchMachineId, searchExpiresAt, quote, service, policies, ...machine } = row;
  return {
    pairing,
    machine: machine as unknown as MarketMachine,
    search: searchMachineId === null ? null : { machineId: searchMachineId as string, expiresAt: searchExpiresAt as Date, quote: (quote ?? null) as StoredQuote | null },
    service: service === null ? null : camelRow<MarketsService>(service as Record<string, unknown>),
    policies: parsedPolicies(policies as Parameters<typeof parsedPolicies>[0]),
  };
}

/** The new order's columns (the `created` status and the times are the statement's). */
export type NewOrder = Pick<
  OrderRow,
  | "id"
  | "machineId"
  | "agentPairingId"
  | "searchId"
  | "quoteId"
  | "serviceId"
  | "skillKey"
  | "providerKey"
  | "serviceType"
  | "operation"
  | "executionMode"
  | "integrationStatus"
  | "spendCurrency"
> & { input: unknown; budget: unknown; payment: unknown; serviceSnapshot: unknown; spendAmount: string };

/**
 * Inserts the order and its event at `now`; with `dailyLimit`, only when the pairing's spend of the day plus the
 * order's stays within it. Answers the order row, or null when the limit refused it (nothing written).
 */
export async function insertOrder(
  tx: MarketsSql,
  order: NewOrder,
  event: { actor: AuditActor; data: unknown },
  dailyLimit: number | null,
  now: Date,
): Promise<OrderRow | null> {
  const ok = dailyLimit === null ? Prisma.sql`true` : dailySpendWithin({ pairingId: order.agentPairingId }, order.spendAmount, dailyLimit, now);
  const json = (value: unknown) => (value === null || value === undefined ? null : JSON.stringify(value));
  const [row] = await query<Record<string, unknown>>(
    tx,
    Prisma.sql`WITH ok AS (SELECT ${ok} AS ok),
    o AS (
      INSERT INTO market_order (id, machine_id, agent_pairing_id, search_id, quote_id, service_id, skill_key, provider_key, service_type,
        operation, execution_mode, integration_status, status, input, budget, payment, service_snapshot, spend_amount, spend_currency,
        created_at, updated_at)
      SELECT ${order.id}::text, ${order.machineId}::text, ${order.agentPairingId}::text, ${order.searchId}::text, ${order.quoteId}::text,
        ${order.serviceId}::text, ${order.skillKey}::text, ${order.providerKey}::text, ${order.serviceType}::text, ${order.operation}::text,
        ${order.executionMode}::text, ${order.integrationStatus}::text, 'created', ${json(order.input)}::jsonb, ${json(order.budget)}::jsonb,
        ${json(order.payment)}::jsonb, ${json(order.serviceSnapshot)}::jsonb, ${order.spendAmount}::numeric, ${order.spendCurrency}::text,
        ${now}::timestamptz, ${now}::timestamptz
      FROM ok WHERE ok.ok
      RETURNING *),
    a AS (
      INSERT INTO market_audit_event (kind, machine_id, actor_type, actor_id, occurred_at, data)
      SELECT 'market.order.created', o.machine_id, ${event.actor.type}::text, ${event.actor.id ?? null}::text, o.created_at, ${JSON.stringify(event.data)}::jsonb FROM o)
    SELECT o.* FROM o`,
  );
  if (!row) return null;
  const created = camelRow<OrderRow>(row);
  created.spendAmount = decimal(created.spendAmount);
  return created;
}
