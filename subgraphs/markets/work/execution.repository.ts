/**
 * The execute path's writes as single statements (data-modifying CTEs): a claim of a new task, and the record of a
 * run, each one round trip instead of one per row. They run in either kind of transaction (common/sql.ts) and keep
 * the rows and checks of the separate statements they replace:
 *
 * - `insertClaimedTask`: the task (stored `executing` with its claim's deadline, nobody saw it `resolved`), its
 *   route, the market order it executes moved to `executing` (only from a status the order table allows, as
 *   transitionOrder), the events, and the order's payment read back.
 * - `recordRun`: the run, its outcome, the task `executing` -> its result only while the claim holds, optionally the
 *   market order's transition, and the events.
 *
 * A conditional UPDATE that matched nothing is reported (`moved`/`tasks`/`orders`), and the caller throws its error,
 * which rolls back the whole statement's work with the transaction. Statement texts are fixed per shape (event count,
 * with or without the order), so each is prepared once per connection.
 */
import { auditEventsInsert, auditEventValues, type AuditEventInput } from "../common/audit.repository.js";
import { camelRow, statementOf, type MarketsSql } from "../common/sql.js";
import type { MarketPayment } from "../../shared/db/generated/client.js";
import type { MarketsOutcome, MarketsRoute, MarketsRun, MarketsTask } from "./task.repository.js";

/** The events of a write as a CTE (audit.repository's rows), parameters from `$first`. */
function auditCte(first: number, count: number): string {
  return count === 0 ? "" : `, audit AS (${auditEventsInsert(first, count)})`;
}

function cached(texts: Map<string, string>, key: string, build: () => string): string {
  let text = texts.get(key);
  if (text === undefined) {
    text = build();
    texts.set(key, text);
  }
  return text;
}

const claimTexts = new Map<string, string>();

/** The order's side of a claim: moved to `executing` from one of `sources`, naming the task, route and deadline. */
export interface OrderClaim {
  orderId: string;
  sources: readonly string[];
}

/**
 * A new task stored `executing` until `deadline`, its route, the order's claim and `events`, in one statement; the
 * order's payment row (null without one) is read in it. `moved`: false when the order was not in a source status.
 */
export async function insertClaimedTask(
  tx: MarketsSql,
  task: MarketsTask,
  route: MarketsRoute,
  deadline: Date,
  order: OrderClaim,
  events: AuditEventInput[],
): Promise<{ moved: boolean; payment: MarketPayment | null }> {
  const text = cached(claimTexts, String(events.length), () => `WITH task AS (
      INSERT INTO markets_task (id, machine_id, skill_key, operation, input, status, candidates, route_id, executing_deadline, created_at, updated_at)
      VALUES ($1, $2, $3, $4, $5::jsonb, 'executing', '[]'::jsonb, $6, $7::timestamptz, $8::timestamptz, $8::timestamptz)
    ), route AS (
      INSERT INTO markets_route (id, machine_id, task_id, service_id, skill_key, provider_key, execution_mode, operation, score, created_at)
      VALUES ($6, $9, $1, $10, $11, $12, $13, $14, $15::float8, $16::timestamptz)
    ), ord AS (
      UPDATE market_order SET task_id = $1, route_id = $6, executing_deadline = $7::timestamptz, status = 'executing', updated_at = $8::timestamptz
      WHERE id = $17 AND status = ANY($18::text[]) RETURNING id
    )${auditCte(19, events.length)}
    SELECT (SELECT count(*) FROM ord)::int AS moved, p.* FROM (SELECT 1) AS one LEFT JOIN market_payment p ON p.order_id = $17`);
  const values = [
    task.id,
    task.machineId,
    task.skillKey,
    task.operation,
    JSON.stringify(task.input),
    route.id,
    deadline,
    task.updatedAt,
    route.machineId,
    route.serviceId,
    route.skillKey,
    route.providerKey,
    route.executionMode,
    route.operation,
    route.score,
    route.createdAt,
    order.orderId,
    order.sources,
    ...auditEventValues(events),
  ];
  const [row] = await statementOf(tx)<Record<string, unknown> & { moved: number }>(text, values);
  const { moved, ...payment } = row!;
  return { moved: moved === 1, payment: payment.id === null || payment.id === undefined ? null : camelRow<MarketPayment>(payment) };
}

const recordTexts = new Map<string, string>();

/** The order's side of a record: moved to `to` from one of `sources` with the run's IDs. */
export interface OrderRecord {
  orderId: string;
  to: string;
  sources: readonly string[];
  now: Date;
  /** Set when given; null leaves the order's handoff as it is. */
  handoff: unknown;
  errorMessage: string | null;
}

/**
 * The run, its outcome, the task `executing` -> `next` at the run's finish, the order's transition (when given) and
 * `events`, in one statement. `task`: false when the task was no longer `executing` (the recovery recorded it);
 * `order`: false when the order was not in a source status.
 */
export async function recordRun(
  tx: MarketsSql,
  run: MarketsRun,
  outcome: MarketsOutcome,
  next: string,
  order: OrderRecord | null,
  events: AuditEventInput[],
): Promise<{ task: boolean; order: boolean }> {
  const key = `${order ? "order" : "task"}:${events.length}`;
  const first = order ? 22 : 16;
  const text = cached(recordTexts, key, () => {
    const ord = order
      ? `, ord AS (
      UPDATE market_order SET run_id = $1, outcome_id = $12, handoff = COALESCE($20::jsonb, handoff), error_message = $21, status = $17, updated_at = $19::timestamptz
      WHERE id = $16 AND status = ANY($18::text[]) RETURNING id
    )`
      : "";
    return `WITH run AS (
      INSERT INTO markets_run (id, machine_id, task_id, route_id, provider_key, execution_mode, status, http_status, error_reason, started_at, finished_at)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8::int, $9, $10::timestamptz, $11::timestamptz)
    ), outcome AS (
      INSERT INTO markets_outcome (id, machine_id, task_id, run_id, kind, result, created_at) VALUES ($12, $2, $3, $1, $13, $14::jsonb, $11::timestamptz)
    ), task AS (
      UPDATE markets_task SET status = $15, updated_at = $11::timestamptz WHERE id = $3 AND status = 'executing' RETURNING id
    )${ord}${auditCte(first, events.length)}
    SELECT (SELECT count(*) FROM task)::int AS tasks${order ? ", (SELECT count(*) FROM ord)::int AS orders" : ""}`;
  });
  const values: unknown[] = [
    run.id,
    run.machineId,
    run.taskId,
    run.routeId,
    run.providerKey,
    run.executionMode,
    run.status,
    run.httpStatus,
    run.errorReason,
    run.startedAt,
    run.finishedAt,
    outcome.id,
    outcome.kind,
    JSON.stringify(outcome.result),
    next,
  ];
  if (order) {
    values.push(order.orderId, order.to, order.sources, order.now, order.handoff === null || order.handoff === undefined ? null : JSON.stringify(order.handoff), order.errorMessage);
  }
  values.push(...auditEventValues(events));
  const [row] = await statementOf(tx)<{ tasks: number; orders?: number }>(text, values);
  return { task: row!.tasks === 1, order: order === null || row!.orders === 1 };
}
