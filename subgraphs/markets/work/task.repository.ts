/** Task, route, run and outcome rows; lists page newest first by keyset (time, ID). */
import type { Database } from "../../shared/db/index.js";
import type { MarketsOutcome, MarketsRoute, MarketsRun, MarketsTask } from "../../shared/db/generated/client.js";
import { inStore } from "../../shared/db/in-store.js";
import { MarketsErrors } from "../common/errors.js";
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

  async task(machineId: string, taskId: string, tx: Tx = this.db.prisma): Promise<MarketsTask> {
    const row = await this.store(() => tx.marketsTask.findUnique({ where: { id: taskId } }));
    if (!row || row.machineId !== machineId) throw notFound();
    return row;
  }

  route(routeId: string | null, tx: Tx = this.db.prisma): Promise<MarketsRoute | null> {
    if (!routeId) return Promise.resolve(null);
    return this.store(() => tx.marketsRoute.findUnique({ where: { id: routeId } }));
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
  async claim(tx: Tx, taskId: string, from: string[], to: string, at: Date, deadline: Date | null = null): Promise<boolean> {
    const { count } = await tx.marketsTask.updateMany({ where: { id: taskId, status: { in: from } }, data: { status: to, updatedAt: at, executingDeadline: deadline } });
    return count === 1;
  }
}
