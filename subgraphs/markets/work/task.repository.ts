/** Task, route, run and outcome rows; lists page newest first by keyset (time, ID). */
import type { Database } from "../../shared/db/index.js";
import type { MarketsOutcome, MarketsRoute, MarketsRun, MarketsTask } from "../../shared/db/generated/client.js";
import { inStore } from "../../shared/db/in-store.js";
import { MarketsErrors } from "../common/errors.js";
import { statementOf, type MarketsSql } from "../common/sql.js";
import { notFound, olderThan, type Keyset, type Tx } from "../common/support.js";

export type { MarketsOutcome, MarketsRoute, MarketsRun, MarketsTask };

export interface RunFilter {
  machineId: string;
  taskId?: string;
  status?: string;
  providerKey?: string;
  since?: Date;
  until?: Date;
}

/** Task and route rows under their Prisma field names (one fixed text each, for transactions and plain reads alike). */
const TASK_BY_ID = `SELECT id, machine_id AS "machineId", skill_key AS "skillKey", operation, input, status, candidates, route_id AS "routeId",
  executing_deadline AS "executingDeadline", created_at AS "createdAt", updated_at AS "updatedAt" FROM markets_task WHERE id = $1`;
const ROUTE_BY_ID = `SELECT id, machine_id AS "machineId", task_id AS "taskId", service_id AS "serviceId", skill_key AS "skillKey",
  provider_key AS "providerKey", execution_mode AS "executionMode", operation, score, created_at AS "createdAt" FROM markets_route WHERE id = $1`;
const CLAIM_TASK = `UPDATE markets_task SET status = $3, updated_at = $4::timestamptz, executing_deadline = $5::timestamptz
  WHERE id = $1 AND status = ANY($2::text[]) RETURNING id`;

export class TaskRepository {
  constructor(
    private readonly db: Database,
    private readonly log: (error: unknown) => void,
  ) {}

  store<T>(step: () => Promise<T>): Promise<T> {
    return inStore(step, MarketsErrors.storeUnavailable, this.log);
  }

  transaction<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    return this.store(() => this.db.prisma.$transaction(work));
  }

  /** The machine's task, read in `tx` (either kind of transaction, common/sql.ts) or as a plain statement; else NOT_FOUND. */
  async task(machineId: string, taskId: string, tx: MarketsSql = this.db.statement): Promise<MarketsTask> {
    const [row] = await this.store(() => statementOf(tx)<MarketsTask>(TASK_BY_ID, [taskId]));
    if (!row || row.machineId !== machineId) throw notFound();
    return row;
  }

  async route(routeId: string | null, tx: MarketsSql = this.db.statement): Promise<MarketsRoute | null> {
    if (!routeId) return null;
    const [row] = await this.store(() => statementOf(tx)<MarketsRoute>(ROUTE_BY_ID, [routeId]));
    return row ?? null;
  }

  tasks(machineId: string, cursor: Keyset | null, take: number, status?: string) {
    return this.store(() =>
      this.db.prisma.marketsTask.findMany({
        where: { machineId, status, ...olderThan("createdAt", cursor) },
        orderBy: [{ createdAt: "desc" }, { id: "desc" }],
        take,
      }),
    );
  }

  routes(machineId: string, cursor: Keyset | null, take: number) {
    return this.store(() =>
      this.db.prisma.marketsRoute.findMany({
        where: { machineId, ...olderThan("createdAt", cursor) },
        orderBy: [{ createdAt: "desc" }, { id: "desc" }],
        take,
      }),
    );
  }

  outcomes(machineId: string, cursor: Keyset | null, take: number) {
    return this.store(() =>
      this.db.prisma.marketsOutcome.findMany({
        where: { machineId, ...olderThan("createdAt", cursor) },
        orderBy: [{ createdAt: "desc" }, { id: "desc" }],
        take,
      }),
    );
  }

  runs(filter: RunFilter, cursor: Keyset | null, take: number) {
    const startedAt = filter.since || filter.until ? { gte: filter.since, lt: filter.until } : undefined;
    return this.store(() =>
      this.db.prisma.marketsRun.findMany({
        where: {
          AND: [
            { machineId: filter.machineId, taskId: filter.taskId, status: filter.status, providerKey: filter.providerKey, startedAt },
            olderThan("startedAt", cursor),
          ],
        },
        orderBy: [{ startedAt: "desc" }, { id: "desc" }],
        take,
      }),
    );
  }

  run(runId: string) {
    return this.store(() => this.db.prisma.marketsRun.findUnique({ where: { id: runId } }));
  }

  outcomeOfRun(runId: string) {
    return this.store(() => this.db.prisma.marketsOutcome.findUnique({ where: { runId } }));
  }

  /**
   * Moves a task from one of `from` to `to` if no one else did first; false when it was not in `from`. A claim on
   * `executing` passes its `deadline` (any other move clears it).
   */
  async claim(tx: MarketsSql, taskId: string, from: string[], to: string, at: Date, deadline: Date | null = null): Promise<boolean> {
    const rows = await statementOf(tx)(CLAIM_TASK, [taskId, from, to, at, deadline]);
    return rows.length === 1;
  }
}
