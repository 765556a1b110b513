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

/** The INSERT of `count` events, built once per count: six parameters per event. */
const insertTexts = new Map<number, string>();

function insertText(count: number): string {
  let text = insertTexts.get(count);
  if (text === undefined) {
    const rows = Array.from({ length: count }, (_, i) => {
      const n = (k: number) => `$${i * 6 + k}`;
      return `(${n(1)}, ${n(2)}, ${n(3)}, ${n(4)}, ${n(5)}::timestamptz, ${n(6)}::jsonb)`;
    });
    text = `INSERT INTO market_audit_event (kind, machine_id, actor_type, actor_id, occurred_at, data) VALUES ${rows.join(", ")}
      RETURNING id::text AS id`;
    insertTexts.set(count, text);
  }
  return text;
}

function insertValues(events: AuditEventInput[]): unknown[] {
  const values: unknown[] = [];
  for (const e of events) values.push(e.kind, e.machineId, e.actor.type, e.actor.id ?? null, e.occurredAt ?? new Date(), JSON.stringify(e.data));
  return values;
}

/** One event, in the transaction of its change (either kind: common/sql.ts); answers its ID. */
export async function recordAuditEvent(tx: MarketsSql, event: AuditEventInput): Promise<bigint> {
  const [row] = await statementOf(tx)<{ id: string }>(insertText(1), insertValues([event]));
  return BigInt(row!.id);
}

/**
 * Several events of one change in one multi-row INSERT, in the transaction of the change: their IDs follow the order
 * of `events`, as separate `recordAuditEvent` calls would give them.
 */
export async function recordAuditEvents(tx: MarketsSql, events: AuditEventInput[]): Promise<void> {
  if (events.length === 0) return;
  await statementOf(tx)(insertText(events.length), insertValues(events));
}

/**
 * The same row as `recordAuditEvent`, as an `INSERT` statement to embed in a data-modifying CTE of a hot path (the
 * heartbeat writes its change and its event in one statement, inside its transaction).
 */
export function auditEventInsertSql(event: AuditEventInput): Prisma.Sql {
  return Prisma.sql`INSERT INTO market_audit_event (kind, machine_id, actor_type, actor_id, occurred_at, data)
    VALUES (${event.kind}, ${event.machineId}, ${event.actor.type}, ${event.actor.id ?? null}, ${event.occurredAt ?? new Date()},
      ${JSON.stringify(event.data)}::jsonb)`;
}
