/**
 * What the graph, catalogue, task, policy and audit families share: server IDs, keyset cursors, input checks, and
 * the seams to the machine guard and the audit log (global rule 1; every state change writes its audit event in
 * the same transaction as the change).
 */
import { pooledRandomBytes } from "../../shared/crypto/random-pool.js";
import type { Clock } from "../../shared/clock.js";
import { recordAuditEvent, type AuditEventInput, type MarketsTx } from "./audit.repository.js";
import { MarketsErrors } from "./errors.js";
import type { MarketsStore } from "./store.js";
import { decodeCursor as decodePosition, encodeCursor as encodePosition, pageRequest } from "./pagination.js";

export type Tx = MarketsTx;

export const invalid = MarketsErrors.validation;
export const notFound = MarketsErrors.notFound;

/** `node_3f9k...`: a prefix naming the resource and 16 random bytes in lowercase base32. */
export function newId(prefix: string): string {
  const alphabet = "abcdefghijklmnopqrstuvwxyz234567";
  let out = "";
  for (const byte of pooledRandomBytes(16)) out += alphabet[byte & 31];
  return `${prefix}_${out}`;
}

/** The page size of a list request (pagination.ts: 1..500, default 100). */
export function pageLimit(limit: number | null | undefined): number {
  return pageRequest(limit, null, 2).limit;
}

/** A keyset position: the last row's time and ID (an opaque cursor of pagination.ts). */
export interface Keyset {
  at: Date;
  id: string;
}

export function encodeCursor(position: Keyset): string {
  return encodePosition([position.at.toISOString(), position.id]);
}

export function decodeCursor(cursor: string | null | undefined): Keyset | null {
  if (cursor === null || cursor === undefined) return null;
  const [time, id] = decodePosition(cursor, 2) as [string, string];
  const at = new Date(time);
  if (Number.isNaN(at.getTime()) || at.toISOString() !== time) throw invalid();
  return { at, id };
}

/** Rows newest first; one extra row tells whether a next page exists. */
export function pageOf<Row, View>(rows: Row[], limit: number, key: (row: Row) => Keyset, view: (row: Row) => View) {
  const more = rows.length > limit;
  const page = more ? rows.slice(0, limit) : rows;
  return { items: page.map(view), nextCursor: more ? encodeCursor(key(page[page.length - 1]!)) : null };
}

/** Prisma `where` for "older than the cursor" in (time desc, id desc) order. */
export function olderThan(field: string, cursor: Keyset | null): Record<string, unknown> {
  if (!cursor) return {};
  return { OR: [{ [field]: { lt: cursor.at } }, { [field]: cursor.at, id: { lt: cursor.id } }] };
}

export function optionalTime(value: string | null | undefined): Date | undefined {
  if (value === null || value === undefined) return undefined;
  const at = new Date(value);
  if (!/^\d{4}-\d{2}-\d{2}T/.test(value) || Number.isNaN(at.getTime())) throw invalid();
  return at;
}

export function text(value: string | null | undefined, max: number, fallback?: string): string {
  if (value === null || value === undefined) {
    if (fallback === undefined) throw invalid();
    return fallback;
  }
  const trimmed = value.trim();
  if (trimmed.length === 0 || trimmed.length > max) throw invalid();
  return trimmed;
}

export function oneOf<T extends string>(value: string | null | undefined, allowed: readonly T[], fallback?: T): T {
  if (value === null || value === undefined) {
    if (fallback === undefined) throw invalid();
    return fallback;
  }
  if (!(allowed as readonly string[]).includes(value)) throw invalid();
  return value as T;
}

export type JsonObject = Record<string, unknown>;

/** A JSON object of at most `maxBytes` serialised. */
export function jsonObject(value: unknown, maxBytes = 16_384): JsonObject {
  if (value === null || typeof value !== "object" || Array.isArray(value)) throw invalid();
  if (Buffer.byteLength(JSON.stringify(value), "utf8") > maxBytes) throw invalid();
  return value as JsonObject;
}

/** Who caused a state change, as the audit log records it. */
export interface AuditActor {
  type: "platform" | "agent" | "machine-agent" | "system";
  id: string;
}

export const PLATFORM_ACTOR: AuditActor = { type: "platform", id: "api" };

export interface WorkAuditEvent {
  machineId: string | null;
  kind: string;
  actor: AuditActor;
  entityType: string;
  entityId: string;
  payload: { before?: unknown; after?: unknown; [more: string]: unknown };
}

/** Writes one audit event inside the caller's transaction. */
export type AuditWriter = (tx: Tx, event: WorkAuditEvent) => Promise<unknown>;

/** Global rule 1: the machine must be active and identity-verified (MACHINE_NOT_ACTIVE / MACHINE_NOT_ACTIVATED). */
export type MachineCheck = (machineId: string) => Promise<unknown>;

/** Global rule 1 (common/machine.guard.ts) through the store's guard, read on the database's own client. */
export function machineCheckOn(store: MarketsStore): MachineCheck {
  return (machineId) => store.requireActiveMachine(store.db.prisma, machineId);
}

/** A work family's event as the audit log's row: entity, before and after go into the event's `data`. */
export function workAuditEvent(clock: Clock, event: WorkAuditEvent): AuditEventInput {
  return {
    kind: event.kind as never,
    machineId: event.machineId,
    actor: event.actor,
    data: JSON.parse(JSON.stringify({ entityType: event.entityType, entityId: event.entityId, ...event.payload })),
    occurredAt: new Date(clock.now()),
  };
}

/** The audit writer of common/audit.repository.ts, one event per call. */
export function auditWriter(clock: Clock): AuditWriter {
  return (tx, event) => recordAuditEvent(tx, workAuditEvent(clock, event));
}
