/**
 * Executing a resolved task.
 *
 * - No route: ROUTE_REQUIRED (409). Executed or handed-off tasks, or one already executing: TASK_STATE_INVALID.
 * - `external-handoff`: the run and outcome record the service's handoff; the answer is 202 with it
 *   (`task.handoff-recorded`).
 * - `native`: `POST <endpointBaseUrl>/v1/skills/<skillKey>/<operation>` with `{taskId, machineId, input}` at the
 *   machine's live runtime endpoint for the route's provider, with its stored credentials (`bearer`:
 *   `Authorization: Bearer`, `api-key`: `x-api-key`), through `runtime.outbound` (the platform's SSRF guard) with
 *   a deadline (MARKETS_PROVIDER_TIMEOUT_MS). The provider's status is the answer's status (2xx, 4xx, 5xx; any other
 *   is 502); 2xx: `executed` and `task.executed`, else `failed` and `task.execution-failed`. A refused or failed
 *   exchange is a failed run too, answered 504 (timeout) or 502 (anything else) with the refusal's reason.
 * - No live endpoint for the provider: RUNTIME_ENDPOINT_REQUIRED (409), nothing changes.
 * - An `access`, `routing` or `compliance` policy of the machine that does not allow the route's service:
 *   MACHINE_POLICY_DENIED (403), nothing changes (policy.enforcement.ts).
 * - The claim on `executing` holds until its deadline (MARKETS_EXECUTION_DEADLINE_SECONDS). A task found executing past
 *   it is recovered `failed` (task.service.ts recoverInTx) and this call answers TASK_STATE_INVALID without calling the
 *   provider; a late result of a stalled call is not recorded over the recovery (TASK_STATE_INVALID).
 */
import { MarketsErrors } from "../common/errors.js";
import { OutboundRefusal, type OutboundClient } from "../../shared/net/outbound.js";
import type { TaskService } from "./task.service.js";
import { taskStateInvalid } from "./task.service.js";
import type { MarketsOutcome, MarketsRoute, MarketsRun, MarketsTask } from "./task.repository.js";
import { recordRun, type OrderRecord } from "./execution.repository.js";
import type { AuditEventInput } from "../common/audit.repository.js";
import type { MarketsSql } from "../common/sql.js";
import { outcomeView, runView, taskView, type OutcomeView, type RunView, type TaskView } from "./task.views.js";
import { PLATFORM_ACTOR, newId, type JsonObject, type WorkAuditEvent } from "../common/support.js";
import type { ServiceView } from "./catalogue.service.js";
import { enforceMachinePolicies, policySubjectOf } from "../policies/policy.enforcement.js";

/** What the executor needs of a machine's runtime endpoint: the live one for a provider, secret included. */
export interface ExecutionEndpoint {
  endpointBaseUrl: string;
  authType: string;
  authToken: string | null;
}

/** `tx`: read in the caller's transaction (default: the database's own client). */
export type EndpointLookup = (machineId: string, providerKey: string, tx?: MarketsSql) => Promise<ExecutionEndpoint | null>;

export interface Execution {
  httpStatus: number;
  task: TaskView;
  run: RunView;
  outcome: OutcomeView;
  handoff: { label: string; url: string; notes: string[] } | null;
}

const MAX_PROVIDER_BYTES = 1024 * 1024;

export const routeRequired = MarketsErrors.routeRequired;
export const endpointRequired = MarketsErrors.runtimeEndpointRequired;

export interface Attempt {
  status: "succeeded" | "failed" | "handoff";
  httpStatus: number;
  providerStatus: number | null;
  errorReason: string | null;
  result: JsonObject;
  kind: "provider-response" | "handoff" | "error";
}

export class TaskExecutor {
  constructor(
    private readonly tasks: TaskService,
    private readonly service: (id: string, tx?: MarketsSql) => Promise<ServiceView>,
    private readonly endpoints: EndpointLookup,
    private readonly outbound: OutboundClient,
    private readonly timeoutMs: number,
    /** MARKETS_EXECUTION_DEADLINE_SECONDS in ms: how long the `executing` claim holds (task.service.ts recoverInTx). */
    private readonly deadlineMs: number,
  ) {}

  async execute(machineId: string, taskId: string): Promise<Execution> {
    await this.tasks.machineCheck(machineId);
    const repo = this.tasks.repo;
    // A claim past its deadline is recovered (failed, provider not called again) and this call runs nothing.
    if (await this.tasks.recoverIfDue(machineId, taskId)) throw taskStateInvalid();
    const task = await repo.task(machineId, taskId);
    const route = await repo.route(task.routeId);
    if (!route) throw routeRequired();
    if (task.status !== "resolved" && task.status !== "failed") throw taskStateInvalid();
    const { service, endpoint } = await this.prepare(machineId, route);
    const startedAt = new Date(this.tasks.clock.now());
    // Claim the task so two concurrent executions cannot both call the provider.
    // The machine's policies are read in the claim's transaction: a refusal leaves the task as it was.
    const deadline = new Date(startedAt.getTime() + this.deadlineMs);
    const claimed = await repo.transaction(async (tx) => {
      await enforceMachinePolicies(tx, policySubjectOf(machineId, service), null);
      return repo.claim(tx, taskId, ["resolved", "failed"], "executing", startedAt, deadline);
    });
    if (!claimed) throw taskStateInvalid();
    let attempt: Attempt;
    try {
      attempt = await this.attempt(task, route, service, endpoint);
    } catch (error) {
      await repo.transaction((tx) => repo.claim(tx, taskId, ["executing"], task.status, new Date(this.tasks.clock.now())));
      throw error;
    }
    const claimedTask = { ...task, status: "executing", updatedAt: startedAt, executingDeadline: deadline };
    return repo.transaction(async (tx) => {
      const { execution, event } = await this.recordInTx(tx, task, claimedTask, route, service, attempt, startedAt);
      await this.tasks.audit(tx, event);
      return execution;
    });
  }

  /** How long an `executing` claim holds, in ms (MARKETS_EXECUTION_DEADLINE_SECONDS). */
  get claimMs(): number {
    return this.deadlineMs;
  }

  /**
   * What a run of `route` needs before anything is claimed: its service, and for a `native` route the machine's live
   * endpoint for the provider (RUNTIME_ENDPOINT_REQUIRED without one); read in `tx` when given. `known`: the route's
   * service as the caller already read it in `tx`.
   */
  async prepare(
    machineId: string,
    route: Pick<MarketsRoute, "serviceId" | "executionMode" | "providerKey">,
    tx?: MarketsSql,
    known?: ServiceView,
  ): Promise<{ service: ServiceView; endpoint: ExecutionEndpoint | null }> {
    const service = known ?? (await this.service(route.serviceId, tx));
    const endpoint = route.executionMode === "native" ? await this.endpoints(machineId, route.providerKey, tx) : null;
    if (route.executionMode === "native" && !endpoint) throw endpointRequired();
    return { service, endpoint };
  }

  /** The run itself, after the claim: the provider's call (`native`) or the service's handoff. */
  attempt(task: MarketsTask, route: MarketsRoute, service: ServiceView, endpoint: ExecutionEndpoint | null): Promise<Attempt> {
    return endpoint ? this.callProvider(task, route, endpoint) : Promise.resolve(this.handoff(service));
  }

  private handoff(service: ServiceView): Attempt {
    const handoff = service.handoff ?? { label: service.name, url: service.referenceUrl ?? "", notes: [] };
    return { status: "handoff", httpStatus: 202, providerStatus: null, errorReason: null, result: { handoff }, kind: "handoff" };
  }

  private async callProvider(task: MarketsTask, route: MarketsRoute, endpoint: ExecutionEndpoint): Promise<Attempt> {
    const headers: Record<string, string> = { "content-type": "application/json", accept: "application/json" };
    if (endpoint.authToken && endpoint.authType === "bearer") headers.authorization = `Bearer ${endpoint.authToken}`;
    if (endpoint.authToken && endpoint.authType === "api-key") headers["x-api-key"] = endpoint.authToken;
    const base = endpoint.endpointBaseUrl.replace(/\/+$/, "");
    const url = `${base}/v1/skills/${encodeURIComponent(route.skillKey)}/${encodeURIComponent(route.operation)}`;
    try {
      const response = await this.outbound.request({
        url,
        method: "POST",
        headers,
        body: JSON.stringify({ taskId: task.id, machineId: task.machineId, input: task.input }),
        timeoutMs: this.timeoutMs,
        maxResponseBytes: MAX_PROVIDER_BYTES,
      });
      const ok = response.status >= 200 && response.status < 300;
      const propagated = ok || (response.status >= 400 && response.status < 600) ? response.status : 502;
      return {
        status: ok ? "succeeded" : "failed",
        httpStatus: propagated,
        providerStatus: response.status,
        errorReason: ok ? null : "provider_status",
        result: { status: response.status, body: parseBody(response.body) },
        kind: "provider-response",
      };
    } catch (error) {
      if (!(error instanceof OutboundRefusal)) throw error;
      return {
        status: "failed",
        httpStatus: error.reason === "timeout" ? 504 : 502,
        providerStatus: null,
        errorReason: error.reason,
        result: { error: error.reason },
        kind: "error",
      };
    }
  }

  /**
   * The run's record inside the caller's transaction (either kind, common/sql.ts), in one statement
   * (execution.repository.ts recordRun): run, outcome, and the task `executing` -> executed, handoff or failed only
   * while the claim holds (a task the recovery already recorded failed keeps that record: TASK_STATE_INVALID). `task`
   * is the row before the claim (the event's `before`), `claimed` the row the claim left. The task's event is
   * returned for the caller to write in the same transaction, unless `withOrder` gives the market order's transition
   * and the events to write in the same statement (`orderMoved`: whether the order was in a source status).
   */
  async recordInTx(
    tx: MarketsSql,
    task: MarketsTask,
    claimed: MarketsTask,
    route: MarketsRoute,
    service: ServiceView,
    attempt: Attempt,
    startedAt: Date,
    withOrder?: (execution: Execution, event: WorkAuditEvent) => { order: OrderRecord; events: AuditEventInput[] },
  ): Promise<{ execution: Execution; event: WorkAuditEvent; orderMoved: boolean }> {
    const finishedAt = new Date(this.tasks.clock.now());
    const next = attempt.status === "succeeded" ? "executed" : attempt.status === "handoff" ? "handoff" : "failed";
    const kind = attempt.status === "succeeded" ? "task.executed" : attempt.status === "handoff" ? "task.handoff-recorded" : "task.execution-failed";
    const run: MarketsRun = {
      id: newId("run"),
      machineId: task.machineId,
      taskId: task.id,
      routeId: route.id,
      providerKey: route.providerKey,
      executionMode: route.executionMode,
      status: attempt.status,
      httpStatus: attempt.providerStatus ?? (attempt.status === "handoff" ? 202 : null),
      errorReason: attempt.errorReason,
      startedAt,
      finishedAt,
    };
    // The stored JSON's value (what a read of the row gives back).
    const result = JSON.parse(JSON.stringify(attempt.result)) as JsonObject;
    const outcome: MarketsOutcome = { id: newId("outcome"), machineId: task.machineId, taskId: task.id, runId: run.id, kind: attempt.kind, result: result as MarketsOutcome["result"], createdAt: finishedAt };
    const after: MarketsTask = { ...claimed, status: next, updatedAt: finishedAt };
    const execution: Execution = {
      httpStatus: attempt.httpStatus,
      task: taskView(after, route),
      run: runView(run),
      outcome: outcomeView(outcome),
      handoff: attempt.status === "handoff" ? (result.handoff as Execution["handoff"]) : null,
    };
    const event: WorkAuditEvent = {
      machineId: task.machineId,
      kind,
      actor: PLATFORM_ACTOR,
      entityType: "task",
      entityId: task.id,
      payload: { before: taskView(task, route), after: { task: execution.task, run: execution.run, serviceId: service.id } },
    };
    const fused = withOrder?.(execution, event);
    const recorded = await recordRun(tx, run, outcome, next, fused?.order ?? null, fused?.events ?? []);
    // Only while the claim holds: a task the recovery already recorded failed keeps that record.
    if (!recorded.task) throw taskStateInvalid();
    return { execution, event, orderMoved: recorded.order };
  }
}

function parseBody(body: Buffer): unknown {
  const textBody = body.toString("utf8");
  try {
    return JSON.parse(textBody) as unknown;
  } catch {
    return { text: textBody.slice(0, 4096) };
  }
}
