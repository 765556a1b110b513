/**
 * Reading the audit log (`GET /audit-events`): filters by machine, kind, actor (type, ID) and time
 * (`since` inclusive, `until` exclusive, ISO 8601), newest first, keyset pages over the event ID (an opaque cursor),
 * so page N costs what page 1 costs. Indexes: the writer's migration (machine, kind, actor, time, each with id)
 * and ours (machine + kind + id), so every filter combination the API offers walks an index in ID order.
 * Audit routes skip the machine check (global rule 1).
 */
import { Prisma, type Database } from "../../shared/db/index.js";
import type { MarketAuditEvent } from "../../shared/db/generated/client.js";
import { inStore } from "../../shared/db/in-store.js";
import { MarketsErrors } from "../common/errors.js";
import { pageOf, pageRequest } from "../common/pagination.js";
import { optionalTime, text, type JsonObject } from "../common/support.js";

export interface AuditFilter {
  machineId?: string | null;
  kind?: string | null;
  actorType?: string | null;
  actorId?: string | null;
  since?: string | null;
  until?: string | null;
}

export const ACTOR_TYPES = ["platform", "machine", "agent", "machine-agent", "system"];

export const auditEventView = (e: MarketAuditEvent) => ({
  id: e.id.toString(),
  kind: e.kind,
  machineId: e.machineId,
  actor: { type: e.actorType, id: e.actorId },
  occurredAt: e.occurredAt.toISOString(),
  data: e.data as JsonObject,
});

export type AuditEventView = ReturnType<typeof auditEventView>;

interface AuditRow {
  id: bigint;
  kind: string;
  machine_id: string | null;
  actor_type: string;
  actor_id: string | null;
  occurred_at: Date;
  data: unknown;
}

const rowView = (r: AuditRow) =>
  auditEventView({ id: r.id, kind: r.kind, machineId: r.machine_id, actorType: r.actor_type, actorId: r.actor_id, occurredAt: r.occurred_at, data: r.data } as MarketAuditEvent);

export class AuditService {
  constructor(
    private readonly db: Database,
    private readonly log: (error: unknown) => void,
  ) {}

  /**
   * Newest first by (occurredAt, id). One SQL statement whose equality filters and row-comparison keyset bound match
   * an index of migration 20261123223920_markets_audit_event_keyset, so a page reads `limit + 1` index entries
   * whatever its depth (Prisma's OR form of the keyset bound would be a filter, not an index bound).
   */
  async list(filter: AuditFilter, page: { limit?: number | null; cursor?: string | null }) {
    const { limit, statement } = this.statement(filter, page);
    const rows = await inStore(() => this.db.prisma.$queryRaw<AuditRow[]>(statement), MarketsErrors.storeUnavailable, this.log);
    const result = pageOf(rows, limit, (e) => [e.occurred_at.toISOString(), e.id.toString()]);
    return { items: result.items.map(rowView), nextCursor: result.nextCursor };
  }

  /** The page's one SQL statement (also what the bench EXPLAINs). */
  statement(filter: AuditFilter, page: { limit?: number | null; cursor?: string | null }): { limit: number; statement: Prisma.Sql } {
    const { limit, after } = pageRequest(page.limit, page.cursor, 2);
    const given = (v: string | null | undefined) => (v === null || v === undefined ? undefined : text(v, 200));
    const actorType = given(filter.actorType);
    if (actorType !== undefined && !ACTOR_TYPES.includes(actorType)) throw MarketsErrors.validation();
    let position: { at: Date; id: bigint } | null = null;
    if (after) {
      const at = new Date(after[0]!);
      if (Number.isNaN(at.getTime()) || at.toISOString() !== after[0] || !/^[1-9][0-9]{0,18}$/.test(after[1]!)) throw MarketsErrors.validation();
      position = { at, id: BigInt(after[1]!) };
    }
    const since = optionalTime(filter.since);
    const until = optionalTime(filter.until);
    const conditions: Prisma.Sql[] = [];
    const machineId = given(filter.machineId);
    const kind = given(filter.kind);
    const actorId = given(filter.actorId);
    if (machineId !== undefined) conditions.push(Prisma.sql`machine_id = ${machineId}`);
    if (kind !== undefined) conditions.push(Prisma.sql`kind = ${kind}`);
    if (actorType !== undefined) conditions.push(Prisma.sql`actor_type = ${actorType}`);
    if (actorId !== undefined) conditions.push(Prisma.sql`actor_id = ${actorId}`);
    if (since) conditions.push(Prisma.sql`occurred_at >= ${since}`);
    if (until) conditions.push(Prisma.sql`occurred_at < ${until}`);
    if (position) conditions.push(Prisma.sql`(occurred_at, id) < (${position.at}, ${position.id})`);
    const where = conditions.length > 0 ? Prisma.sql`WHERE ${Prisma.join(conditions, " AND ")}` : Prisma.empty;
    const statement = Prisma.sql`
      SELECT id, kind, machine_id, actor_type, actor_id, occurred_at, data FROM market_audit_event ${where}
      ORDER BY occurred_at DESC, id DESC LIMIT ${limit + 1}`;
    return { limit, statement };
  }
}
