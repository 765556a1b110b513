/**
 * The audit log's writer. Every state change of the markets API writes its event with `recordAuditEvent(tx, ...)`
 * INSIDE the transaction that makes the change (a Prisma or a SQL one, common/sql.ts): both commit or neither does (a test injects a failure after
 * the write and finds neither). Reading the log (keyset pages over `id`) is audit-event.repository's job.
 */
import { Prisma } from "../../shared/db/index.js";
import { statementOf, type MarketsSql } from "./sql.js";

/** A Prisma interactive-transaction client (the `tx` of `prisma.$transaction(async (tx) => ...)`). */
export type MarketsTx = Prisma.TransactionClient;

/** Who made the change (public notes 2.5): the platform API, a paired agent, a machine-side agent, or the system. */
export interface AuditActor {
  type: "platform" | "machine" | "agent" | "machine-agent" | "system";
  id?: string | null;
}

/** The documented kinds (spec, Events), plus `machine.*` and `machine-agent.revoked` (docs/markets-errors.md). */
export type AuditKind =
  | "machine.created"
  | "machine.updated"
  | "machine.session-created"
  | "machine.session-revoked"
  | "runtime-endpoint.upserted"
  | "runtime-endpoint.deleted"
  | "machine-agent.enrolled"
  | "machine-agent.heartbeat"
  | "machine-agent.revoked"
  | "graph.node.created"
  | "graph.node.updated"
  | "graph.node.deleted"
  | "graph.edge.created"
  | "graph.edge.updated"
  | "graph.edge.deleted"
  | "task.created"
  | "task.discovered"
  | "task.resolved"
  | "task.executed"
  | "task.execution-failed"
  | "task.handoff-recorded"
  | "policy.created"
  | "policy.updated"
  | "agent-pairing.created"
  | "agent-pairing.session-rotated"
  | "agent-pairing.updated"
  | "agent-pairing.revoked"
  | `market.${string}`
  | `stream.${string}`;

export interface AuditEventInput {
  kind: AuditKind;
  /** The market machine ID (server string) the change belongs to; null for platform-wide records (policies). */
  machineId: string | null;
  actor: AuditActor;
  /** What changed: never secrets (tokens, credentials). */
  data: Prisma.InputJsonObject;
  /** When the change happened (the service's injected clock); defaults to now. */
  occurredAt?: Date;
}

/**
 * The INSERT of `count` events with their parameters from `$first` (six per event, in `auditEventValues` order), to
 * run alone or as a CTE of a larger statement.
 */
export function auditEventsInsert(first: number, count: number): string {
  const rows = Array.from({ length: count }, (_, i) => {
    const n = (k: number) => `$${first + i * 6 + k}`;
    return `(${n(0)}, ${n(1)}, ${n(2)}, ${n(3)}, ${n(4)}::timestamptz, ${n(5)}::jsonb)`;
  });
  return `INSERT INTO market_audit_event (kind, machine_id, actor_type, actor_id, occurred_at, data) VALUES ${rows.join(", ")}`;
}

/** The statement per event count, built once per count. */
const insertTexts = new Map<number, string>();

function insertText(count: number): string {
  let text = insertTexts.get(count);
  if (text === undefined) {
    text = `${auditEventsInsert(1, count)} RETURNING id::text AS id`;
    insertTexts.set(count, text);
  }
  return text;
}

/** The parameters of `events` for `auditEventsInsert`. */
export function auditEventValues(events: AuditEventInput[]): unknown[] {
  const values: unknown[] = [];
  for (const e of events) values.push(e.kind, e.machineId, e.actor.type, e.actor.id ?? null, e.occurredAt ?? new Date(), JSON.stringify(e.data));
  return values;
}

/** One event, in the transaction of its change (either kind: common/sql.ts); answers its ID. */
export async function recordAuditEvent(tx: MarketsSql, event: AuditEventInput): Promise<bigint> {
  const [row] = await statementOf(tx)<{ id: string }>(insertText(1), auditEventValues([event]));
  return BigInt(row!.id);
}

/**
 * Several events of one change in one multi-row INSERT, in the transaction of the change: their IDs follow the order
 * of `events`, as separate `recordAuditEvent` calls would give them.
 */
export async function recordAuditEvents(tx: MarketsSql, events: AuditEventInput[]): Promise<void> {
  if (events.length === 0) return;
  await statementOf(tx)(insertText(events.length), auditEventValues(events));
}
