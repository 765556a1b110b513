/**
 * Reading the audit log (`GET /audit-events`, issue 8 item 7): filters by machine, kind, actor (type, ID) and time
 * (`since` inclusive, `until` exclusive, ISO 8601), newest first, keyset pages over the event ID (an opaque cursor),
 * so page N costs what page 1 costs. Indexes: the writer's migration (machine, kind, actor, time, each with id)
 * and ours (machine + kind + id), so every filter combination the API offers walks an index in ID order.
 * Audit routes skip the machine check (global rule 1).
 */
import type { Database } from "../shared/db/index.js";
import type { MarketAuditEvent } from "../shared/db/generated/client.js";
import { inStore } from "../shared/db/in-store.js";
import { MarketsErrors } from "./errors.js";
import { pageOf, pageRequest } from "./pagination.js";
import { optionalTime, text, type JsonObject } from "./work-support.js";

export interface AuditFilter {
  machineId?: string | null;
  kind?: string | null;
  actorType?: string | null;
  actorId?: string | null;
  since?: string | null;
  until?: string | null;
}

export const ACTOR_TYPES = ["platform", "agent", "machine-agent", "system"];

export const auditEventView = (e: MarketAuditEvent) => ({
  id: e.id.toString(),
  kind: e.kind,
  machineId: e.machineId,
  actor: { type: e.actorType, id: e.actorId },
  occurredAt: e.occurredAt.toISOString(),
  data: e.data as JsonObject,
});

export type AuditEventView = ReturnType<typeof auditEventView>;

export class AuditService {
  constructor(
    private readonly db: Database,
    private readonly log: (error: unknown) => void,
  ) {}

  async list(filter: AuditFilter, page: { limit?: number | null; cursor?: string | null }) {
    const { limit, after } = pageRequest(page.limit, page.cursor, 1);
    if (after && !/^[1-9][0-9]{0,18}$/.test(after[0]!)) throw MarketsErrors.validation();
    const given = (v: string | null | undefined) => (v === null || v === undefined ? undefined : text(v, 200));
    const actorType = given(filter.actorType);
    if (actorType !== undefined && !ACTOR_TYPES.includes(actorType)) throw MarketsErrors.validation();
    const since = optionalTime(filter.since);
    const until = optionalTime(filter.until);
    const rows = await inStore(
      () =>
        this.db.prisma.marketAuditEvent.findMany({
          where: {
            machineId: given(filter.machineId),
            kind: given(filter.kind),
            actorType,
            actorId: given(filter.actorId),
            occurredAt: since || until ? { gte: since, lt: until } : undefined,
            id: after ? { lt: BigInt(after[0]!) } : undefined,
          },
          orderBy: { id: "desc" },
          take: limit + 1,
        }),
      MarketsErrors.storeUnavailable,
      this.log,
    );
    const result = pageOf(rows, limit, (e) => [e.id.toString()]);
    return { items: result.items.map(auditEventView), nextCursor: result.nextCursor };
  }
}
