/**
 * Tasks: create (queued), discover (route candidates from the catalogue), resolve (a route
 * persisted, `task.resolved`), and the lists of tasks, routes, outcomes and runs. Execution is in work/task.executor.ts.
 *
 * States: queued -discover-> discovered -resolve-> resolved -execute-> executed | failed | handoff; a failed task
 * may be executed again. A transition from another state answers TASK_STATE_INVALID (409) and changes nothing. An
 * `executing` claim carries a deadline (MARKETS_EXECUTION_DEADLINE_SECONDS); past it the next call on the task, or the
 * lifecycle job, records the task `failed` without calling the provider (recoverInTx).
 */
import type { Clock } from "../../shared/clock.js";
import { MarketsErrors } from "../common/errors.js";
import { rank, type CatalogueService } from "./catalogue.service.js";
import { TaskRepository, type RunFilter } from "./task.repository.js";
import { outcomeView, routeView, runView, taskView, type Candidate, type TaskView } from "./task.views.js";
import {
  PLATFORM_ACTOR,
  decodeCursor,
  invalid,
  jsonObject,
  newId,
  notFound,
  oneOf,
  optionalTime,
  pageLimit,
  pageOf,
  text,
  type AuditWriter,
  type Tx,
  type MachineCheck,
} from "../common/support.js";

export const TASK_STATUSES = ["queued", "discovered", "resolved", "executing", "executed", "failed", "handoff"] as const;
export const RUN_STATUSES = ["succeeded", "failed", "handoff"] as const;

export const taskStateInvalid = MarketsErrors.taskStateInvalid;

/** The lifecycle recovery, as the audit log names it. */
export const LIFECYCLE_TASK_ACTOR = { type: "system", id: "lifecycle" } as const;

/** A task or order still `executing` whose claim's deadline has passed. */
export const executionDue = (row: { status: string; executingDeadline: Date | null }, now: Date): boolean =>
  row.status === "executing" && row.executingDeadline !== null && row.executingDeadline.getTime() <= now.getTime();

export interface TaskInput {
  skillKey?: string | null;
  operation?: string | null;
  input?: unknown;
}

export interface PageArgs {
  limit?: number | null;
  cursor?: string | null;
}

export class TaskService {
  constructor(
    readonly repo: TaskRepository,
    private readonly catalogue: CatalogueService,
    readonly machineCheck: MachineCheck,
    readonly audit: AuditWriter,
    readonly clock: Clock,
  ) {}

  async view(machineId: string, taskId: string): Promise<TaskView> {
    const task = await this.repo.task(machineId, taskId);
    return taskView(task, await this.repo.route(task.routeId));
  }

  async get(machineId: string, taskId: string): Promise<TaskView> {
    await this.machineCheck(machineId);
    await this.recoverIfDue(machineId, taskId);
    return this.view(machineId, taskId);
  }

  /** Lazy recovery: a call on a task still `executing` past its deadline recovers it first; true when this call did. */
  async recoverIfDue(machineId: string, taskId: string): Promise<boolean> {
    const now = new Date(this.clock.now());
    if (!executionDue(await this.repo.task(machineId, taskId), now)) return false;
    return this.repo.transaction((tx) => this.recoverInTx(tx, taskId, now));
  }

  /**
   * Recovery of a task whose `executing` claim passed its deadline (docs/markets-work.md "Execution deadline"): the
   * process holding the claim died or stalled, and whether it called the provider is unknown, so nothing calls it
   * again here. Under the task's row lock: a failed run (`errorReason: deadline_exceeded`) and its outcome, the task
   * `failed`, `task.execution-failed`. `owned`: the caller (a market order's recovery) holds the claim's owner and
   * recovers the task with it whatever its own deadline. True when the task was recovered.
   */
  async recoverInTx(tx: Tx, taskId: string, now: Date, owned = false): Promise<boolean> {
    await tx.$executeRaw`SELECT 1 FROM markets_task WHERE id = ${taskId} FOR UPDATE`;
    const task = await tx.marketsTask.findUnique({ where: { id: taskId } });
    if (!task || task.status !== "executing" || (!owned && !executionDue(task, now))) return false;
    const route = task.routeId ? await tx.marketsRoute.findUnique({ where: { id: task.routeId } }) : null;
    if (!route) return false;
    const run = await tx.marketsRun.create({
      data: {
        id: newId("run"),
        machineId: task.machineId,
        taskId,
        routeId: route.id,
        providerKey: route.providerKey,
        executionMode: route.executionMode,
        status: "failed",
        httpStatus: null,
        errorReason: "deadline_exceeded",
        // The claim wrote updatedAt when it took the task.
        startedAt: task.updatedAt,
        finishedAt: now,
      },
    });
    await tx.marketsOutcome.create({
      data: { id: newId("outcome"), machineId: task.machineId, taskId, runId: run.id, kind: "error", result: { error: "deadline_exceeded" }, createdAt: now },
    });
    const after = await tx.marketsTask.update({ where: { id: taskId }, data: { status: "failed", updatedAt: now } });
    await this.audit(tx, {
      machineId: task.machineId,
      kind: "task.execution-failed",
      actor: LIFECYCLE_TASK_ACTOR,
      entityType: "task",
      entityId: taskId,
      payload: { before: taskView(task, route), after: { task: taskView(after, route), run: runView(run) }, reason: "deadline_exceeded", deadline: task.executingDeadline?.toISOString() ?? null },
    });
    return true;
  }

  async create(machineId: string, input: TaskInput): Promise<TaskView> {
    await this.machineCheck(machineId);
    const skill = await this.catalogue.skill(text(input.skillKey, 100));
    if (!skill) throw invalid();
    const operation = input.operation === null || input.operation === undefined ? skill.operations[0]! : text(input.operation, 100);
    if (!skill.operations.includes(operation)) throw invalid();
    const now = new Date(this.clock.now());
    const row = {
      id: newId("task"),
      machineId,
      skillKey: skill.key,
      operation,
      input: input.input === null || input.input === undefined ? {} : jsonObject(input.input),
      status: "queued",
      candidates: [],
      routeId: null,
      createdAt: now,
      updatedAt: now,
    };
    return this.repo.transaction(async (tx) => {
      const task = await tx.marketsTask.create({ data: row as never });
      const view = taskView(task, null);
      await this.audit(tx, { machineId, kind: "task.created", actor: PLATFORM_ACTOR, entityType: "task", entityId: task.id, payload: { after: view } });
      return view;
    });
  }

  async discover(machineId: string, taskId: string): Promise<TaskView> {
    await this.machineCheck(machineId);
    const task = await this.repo.task(machineId, taskId);
    if (task.status !== "queued" && task.status !== "discovered") throw taskStateInvalid();
    const ranked = rank(await this.catalogue.services({}), { skillKey: task.skillKey, operation: task.operation });
    const candidates: Candidate[] = ranked.map((r) => ({
      serviceId: r.service.id,
      providerKey: r.service.providerKey,
      executionMode: r.service.executionMode,
      operation: r.operation,
      score: r.score,
      reasons: r.reasons,
    }));
    const at = new Date(this.clock.now());
    return this.repo.transaction(async (tx) => {
      if (!(await this.repo.claim(tx, taskId, ["queued", "discovered"], "discovered", at))) throw taskStateInvalid();
      const after = await tx.marketsTask.update({ where: { id: taskId }, data: { candidates: candidates as never } });
      const view = taskView(after, null);
      await this.audit(tx, { machineId, kind: "task.discovered", actor: PLATFORM_ACTOR, entityType: "task", entityId: taskId, payload: { before: taskView(task, null), after: view } });
      return view;
    });
  }

  async resolve(machineId: string, taskId: string, serviceId: string | null | undefined): Promise<TaskView> {
    await this.machineCheck(machineId);
    const task = await this.repo.task(machineId, taskId);
    if (task.status !== "discovered") throw taskStateInvalid();
    const candidates = task.candidates as unknown as Candidate[];
    const chosen = serviceId === null || serviceId === undefined ? candidates[0] : candidates.find((c) => c.serviceId === serviceId);
    if (!chosen) throw invalid();
    const at = new Date(this.clock.now());
    return this.repo.transaction(async (tx) => {
      if (!(await this.repo.claim(tx, taskId, ["discovered"], "resolved", at))) throw taskStateInvalid();
      const route = await tx.marketsRoute.create({
        data: {
          id: newId("route"),
          machineId,
          taskId,
          serviceId: chosen.serviceId,
          skillKey: task.skillKey,
          providerKey: chosen.providerKey,
          executionMode: chosen.executionMode,
          operation: chosen.operation,
          score: chosen.score,
          createdAt: at,
        },
      });
      const after = await tx.marketsTask.update({ where: { id: taskId }, data: { routeId: route.id } });
      const view = taskView(after, route);
      await this.audit(tx, { machineId, kind: "task.resolved", actor: PLATFORM_ACTOR, entityType: "task", entityId: taskId, payload: { before: taskView(task, null), after: view } });
      return view;
    });
  }

  async list(machineId: string, page: PageArgs, status?: string | null) {
    await this.machineCheck(machineId);
    const limit = pageLimit(page.limit);
    const filter = status === null || status === undefined ? undefined : oneOf(status, TASK_STATUSES);
    const rows = await this.repo.tasks(machineId, decodeCursor(page.cursor), limit + 1, filter);
    const routes = new Map<string, Awaited<ReturnType<TaskRepository["route"]>>>();
    for (const row of rows) if (row.routeId) routes.set(row.routeId, await this.repo.route(row.routeId));
    return pageOf(rows, limit, (t) => ({ at: t.createdAt, id: t.id }), (t) => taskView(t, (t.routeId && routes.get(t.routeId)) || null));
  }

  async routes(machineId: string, page: PageArgs) {
    await this.machineCheck(machineId);
    const limit = pageLimit(page.limit);
    const rows = await this.repo.routes(machineId, decodeCursor(page.cursor), limit + 1);
    return pageOf(rows, limit, (r) => ({ at: r.createdAt, id: r.id }), routeView);
  }

  async outcomes(machineId: string, page: PageArgs) {
    await this.machineCheck(machineId);
    const limit = pageLimit(page.limit);
    const rows = await this.repo.outcomes(machineId, decodeCursor(page.cursor), limit + 1);
    return pageOf(rows, limit, (o) => ({ at: o.createdAt, id: o.id }), outcomeView);
  }

  async runs(
    filter: { machineId?: string | null; taskId?: string | null; status?: string | null; providerKey?: string | null; since?: string | null; until?: string | null },
    page: PageArgs,
  ) {
    const machineId = text(filter.machineId, 100);
    await this.machineCheck(machineId);
    const query: RunFilter = {
      machineId,
      taskId: filter.taskId ?? undefined,
      status: filter.status === null || filter.status === undefined ? undefined : oneOf(filter.status, RUN_STATUSES),
      providerKey: filter.providerKey?.toLowerCase() ?? undefined,
      since: optionalTime(filter.since),
      until: optionalTime(filter.until),
    };
    const limit = pageLimit(page.limit);
    const rows = await this.repo.runs(query, decodeCursor(page.cursor), limit + 1);
    return pageOf(rows, limit, (r) => ({ at: r.startedAt, id: r.id }), runView);
  }

  async run(runId: string) {
    const row = await this.repo.run(runId);
    if (!row) throw notFound();
    return runView(row);
  }
}
