/**
 * Market order and payment rows: reads, the conditional transitions every state change goes through (the database's
 * triggers back them up, orders/order.states.ts), and the delegation policy's daily limit.
 */
import type { MarketAgentPairing, MarketMachine, MarketOrder as OrderRow, MarketPayment as PaymentRow, MarketsService, Prisma } from "../../shared/db/generated/client.js";
import { MACHINE_COLUMNS } from "../common/machine.guard.js";
import { APPLICABLE_POLICIES_OF_M, parsedPolicies, type ApplicablePolicy } from "../policies/policy.enforcement.js";
import { pairingColumnsOf, pairingOfRow } from "./pairing.repository.js";
import type { MarketsTx } from "../common/audit.repository.js";
import { MarketsErrors } from "../common/errors.js";
import { lockRowById } from "../common/row-lock.repository.js";
import { camelRow, column, decimal, statementOf, type MarketsSql } from "../common/sql.js";
import { withinDailySpend } from "../common/spend.repository.js";
import { FINISHED_ORDER_STATUSES, orderSourcesOf, paymentSourcesOf, type OrderStatus, type PaymentStatus } from "./order.states.js";

export type { OrderRow, PaymentRow };

export const ORDER_ID = /^ord_[a-z2-7]{16}$/;

/** The order, locked until the transaction ends (FOR UPDATE): concurrent writes on one order run one after another. */
export async function lockOrder(tx: MarketsSql, orderId: string): Promise<OrderRow> {
  if (!ORDER_ID.test(orderId)) throw MarketsErrors.notFound();
  const order = await lockRowById<OrderRow>(tx, "market_order", orderId);
  if (!order) throw MarketsErrors.notFound();
  return order;
}

/** What the start of an agent's write on an order reads (`lockOrderWrite`). */
export interface OrderWriteRows {
  order: OrderRow;
  /** Null when there is none. */
  machine: MarketMachine | null;
  /** The pairing named by the token; null when there is none. */
  pairing: MarketAgentPairing | null;
  /** Only when asked for (execute's claim): the order's service (null without one) and the machine's policies. */
  execution?: { service: MarketsService | null; policies: ApplicablePolicy[] };
}

/** The machine's columns of `m` (MACHINE_COLUMNS, already under their field names) prefixed `m.`. */
const MACHINE_OF_M = MACHINE_COLUMNS.split(",")
  .map((item) => {
    const [name, as] = item.trim().split(/\s+AS\s+/);
    const field = (as ?? name!).replace(/"/g, "");
    return `m."${field}" AS "m.${field}"`;
  })
  .join(", ");

/**
 * The start of every agent write on an order, one statement: the order locked (FOR UPDATE), its machine's row (rule
 * 1) and the token's pairing locked, in that order (the pairing's subquery depends on the order's, so it runs after
 * it): what lockOrder, the guard's read and lockPairing read one after another. Each lock answers its row's latest
 * version; the machine is read with the statement's snapshot. Execute's claim also reads the order's service and the
 * machine's policies (the reads the claim weighs after its own checks).
 */
const lockOrderWriteText = (execution: boolean) => `SELECT o.*, ${MACHINE_OF_M}, ${pairingColumnsOf("p")}${
  execution
    ? `, s.id AS "s.id", s.skill_key AS "s.skillKey", s.provider_key AS "s.providerKey", s.service_type AS "s.serviceType",
    s.execution_mode AS "s.executionMode", s.region AS "s.region", s.record AS "s.record", ${APPLICABLE_POLICIES_OF_M} AS "x.policies"`
    : ""
}
  FROM (SELECT * FROM market_order WHERE id = $1 FOR UPDATE) o
  LEFT JOIN (SELECT ${MACHINE_COLUMNS} FROM market_machine) m ON m.id = o.machine_id
  LEFT JOIN LATERAL (SELECT * FROM market_agent_pairing WHERE id = $2 AND o.id IS NOT NULL FOR UPDATE) p ON true${
    execution ? "\n  LEFT JOIN markets_service s ON s.id = o.service_id" : ""
  }`;
const LOCK_ORDER_WRITE = lockOrderWriteText(false);
const LOCK_ORDER_EXECUTION = lockOrderWriteText(true);

/** The order (null when there is none) with its machine and the pairing `pairingId`, as LOCK_ORDER_WRITE reads them. */
export async function lockOrderWrite(tx: MarketsSql, orderId: string, pairingId: string, execution = false): Promise<OrderWriteRows | null> {
  const [row] = await statementOf(tx)<Record<string, unknown>>(execution ? LOCK_ORDER_EXECUTION : LOCK_ORDER_WRITE, [orderId, pairingId]);
  if (!row) return null;
  const { pairing, rest } = pairingOfRow(row);
  const machine: Record<string, unknown> = {};
  const service: Record<string, unknown> = {};
  const order: Record<string, unknown> = {};
  let policies: unknown = [];
  for (const key in rest) {
    if (key.startsWith("m.")) machine[key.slice(2)] = rest[key];
    else if (key.startsWith("s.")) service[key.slice(2)] = rest[key];
    else if (key === "x.policies") policies = rest[key];
    else order[key] = rest[key];
  }
  const orderRow = camelRow<OrderRow>(order);
  orderRow.spendAmount = decimal(orderRow.spendAmount);
  const found = (fields: Record<string, unknown>) => fields.id !== null && fields.id !== undefined;
  return {
    order: orderRow,
    machine: found(machine) ? (machine as unknown as MarketMachine) : null,
    pairing,
    ...(execution
      ? { execution: { service: found(service) ? (service as unknown as MarketsService) : null, policies: parsedPolicies(policies as Parameters<typeof parsedPolicies>[0]) } }
      : {}),
  };
}

/** ORDER_CLOSED for confirmed, cancelled or failed orders. */
export function assertOpen(order: OrderRow): void {
  if ((FINISHED_ORDER_STATUSES as readonly string[]).includes(order.status)) throw MarketsErrors.orderClosed();
}

/**
 * Moves the order to `to` only from a status the table allows, in one conditional UPDATE; anything else is
 * ORDER_CLOSED (finished) or ORDER_STATE_INVALID, and nothing changes. `order` is the row the caller locked in this
 * transaction (lockOrder): no one else can have changed it, so the row after is `order` with the patch applied, not
 * read again (the status triggers only check transitions; patches are plain values, `undefined` leaves a field).
 */
export async function transitionOrder(
  tx: MarketsSql,
  order: OrderRow,
  to: OrderStatus,
  now: Date,
  patch: OrderPatch = {},
): Promise<OrderRow> {
  assertOpen(order);
  const fields = Object.keys(patch).filter((field) => patch[field as keyof OrderPatch] !== undefined) as Array<keyof OrderPatch>;
  const values: unknown[] = fields.map((field) => (JSON_FIELDS.has(field) ? JSON.stringify(patch[field]) : patch[field]));
  values.push(to, now, order.id, orderSourcesOf(to));
  const updated = await statementOf(tx)(transitionText("market_order", fields, JSON_FIELDS, "id"), values);
  if (updated.length !== 1) throw MarketsErrors.orderStateInvalid();
  return patchedOrder(order, to, now, patch);
}

/** The row a transition leaves: `order` with the patch's defined fields, the new status and time. */
export function patchedOrder(order: OrderRow, to: OrderStatus, now: Date, patch: OrderPatch): OrderRow {
  const after: Record<string, unknown> = { ...order };
  for (const [field, value] of Object.entries(patch)) if (value !== undefined) after[field] = value;
  return { ...(after as OrderRow), status: to, updatedAt: now };
}

/** The order fields a transition may set besides its status (undefined leaves a field as it is). */
export type OrderPatch = Partial<
  Pick<OrderRow, "taskId" | "routeId" | "runId" | "outcomeId" | "executingDeadline" | "errorMessage"> & { handoff: unknown; resolution: unknown }
>;

const JSON_FIELDS = new Set<string>(["handoff", "resolution"]);

/** The conditional UPDATE per table and set of patched fields (a handful of fixed sets): prepared once per connection. */
const transitionTexts = new Map<string, string>();

/**
 * `UPDATE table SET <fields>, status, updated_at WHERE id AND status is a source RETURNING returning`, parameters in
 * that order: the fields' values, the new status, the time, the ID, the source statuses.
 */
function transitionText(table: "market_order" | "market_payment", fields: string[], json: ReadonlySet<string>, returning: string): string {
  const key = `${table} ${fields.join(",")}`;
  let text = transitionTexts.get(key);
  if (text === undefined) {
    // Quoted: `authorization` is a reserved word.
    const sets = fields.map((field, i) => `"${column(field)}" = $${i + 1}${json.has(field) ? "::jsonb" : ""}`);
    const n = fields.length;
    sets.push(`status = $${n + 1}`, `updated_at = $${n + 2}::timestamptz`);
    text = `UPDATE ${table} SET ${sets.join(", ")} WHERE id = $${n + 3} AND status = ANY($${n + 4}::text[]) RETURNING ${returning}`;
    transitionTexts.set(key, text);
  }
  return text;
}

/**
 * The payment counterpart of transitionOrder (ORDER_STATE_INVALID when the payment is not in a source status), in
 * either kind of transaction: one conditional UPDATE answering the row after. `patch`: plain values of the payment's
 * fields (`undefined` leaves a field; Json fields as objects).
 */
export async function transitionPayment(
  tx: MarketsSql,
  payment: PaymentRow,
  to: PaymentStatus,
  now: Date,
  patch: Prisma.MarketPaymentUpdateManyMutationInput = {},
): Promise<PaymentRow> {
  const fields = Object.keys(patch).filter((field) => patch[field as keyof typeof patch] !== undefined);
  const values: unknown[] = fields.map((field) => {
    const value = patch[field as keyof typeof patch];
    return PAYMENT_JSON_FIELDS.has(field) ? JSON.stringify(value) : value;
  });
  values.push(to, now, payment.id, paymentSourcesOf(to));
  const [row] = await statementOf(tx)<Record<string, unknown>>(transitionText("market_payment", fields, PAYMENT_JSON_FIELDS, "*"), values);
  if (!row) throw MarketsErrors.orderStateInvalid();
  return camelRow<PaymentRow>(row);
}

const PAYMENT_JSON_FIELDS = new Set<string>(["details", "authorization"]);

/**
 * Would `amount` keep the pairing within `limit` for the UTC day of `now`? The day's spend of the pairing's market
 * orders and stream purchases (common/spend.repository.ts, one sum for both). The caller holds the pairing's row lock
 * (PairingService.authenticate), so two spends of one pairing, on any instance, cannot both pass on the same sum.
 */
export function withinDailyLimit(tx: MarketsSql, pairingId: string, amount: string, limit: number, now: Date): Promise<boolean> {
  return withinDailySpend(tx, { pairingId }, amount, limit, now);
}
