/**
 * `POST /market/orders/:orderId/execute` (public notes 2.5, 2.7): materialises a `ready` order as a task with its
 * route (the order's service and operation) and runs it through the task executor's steps (work/task.executor.ts).
 *
 * 1. The claim, one SQL transaction under the order's row lock (after the token, rule 1 and the pairing): the service
 *    and the machine's live runtime endpoint for it (RUNTIME_ENDPOINT_REQUIRED), the machine's policies
 *    (MACHINE_POLICY_DENIED), the service and the policies read in the locks' statement; on the first attempt a task and its route are created (`task.created`,
 *    `task.resolved`), the task claimed `executing` and the order ready -> executing, both with the claim's deadline
 *    (MARKETS_EXECUTION_DEADLINE_SECONDS); the new task, its route, the order's transition, both events and the
 *    payment's read are one statement (work/execution.repository.ts). A refusal rolls all of it back: the order
 *    stays ready, nothing is written. It commits before the provider is called.
 * 2. The provider call (or the service's handoff), after an x402 settlement (ExecutionPayments.settleBeforeRun).
 * 3. The record, one SQL transaction under the order's row lock (the order's row first, then the task's): run and
 *    outcome, the task executed, handoff or failed (its event), the order executing -> delivered (provider 2xx),
 *    handoff (external-handoff) or failed (anything else) with the task, route, run and outcome IDs
 *    (`market.order.executed`), all in one statement; its checks answer in the order of the separate statements it
 *    replaces (TASK_STATE_INVALID, then ORDER_CLOSED, then ORDER_STATE_INVALID). An x402 delivery then confirms.
 * An order found executing past its deadline was left by a process that died or stalled, and is recovered `failed`
 * without calling the provider again (orders/order.recovery.ts, which recovers its task too); a late step 3 then
 * finds the task failed and records nothing (TASK_STATE_INVALID). When step 2 throws before any answer, the order
 * goes back to ready and the task to its state before the claim, while the claim is still this call's. The
 * answer's status is the execution's (the provider's status, 202 for a handoff).
 */
import type { AuditActor, AuditEventInput } from "../common/audit.repository.js";
import { MarketsErrors } from "../common/errors.js";
import type { MarketsSql, SqlStatement } from "../common/sql.js";
import { enforcePolicies, policySubjectOf } from "../policies/policy.enforcement.js";
import { serviceView } from "../work/catalogue.service.js";
import { insertClaimedTask } from "../work/execution.repository.js";
import { routeRequired, type Attempt, type Execution, type TaskExecutor } from "../work/task.executor.js";
import type { MarketsRoute, MarketsTask } from "../work/task.repository.js";
import { taskStateInvalid, type TaskService } from "../work/task.service.js";
import { routeView, taskView } from "../work/task.views.js";
import { assertOpen, lockOrder, patchedOrder, transitionOrder, type OrderPatch, type OrderRow, type OrderWriteRows, type PaymentRow } from "./order.repository.js";
import { paymentOfOrder } from "./payments/payment.repository.js";
import { orderSourcesOf, type OrderStatus } from "./order.states.js";
import { orderView, type OrderService, type OrderView } from "./order.service.js";
import { newId, workAuditEvent } from "../common/support.js";

export interface OrderExecution extends Execution {
  order: OrderView;
}

/**
 * The payment side of execute (orders/payments/settlement.service.ts): x402 settles before the run and confirms on
 * delivery. `payment` is the order's payment as the claim's transaction read it (no other write changes it while
 * the order is executing).
 */
export interface ExecutionPayments {
  settleBeforeRun(orderId: string, actor: AuditActor, payment: PaymentRow | null): Promise<void>;
  autoConfirm(tx: MarketsSql, order: OrderRow, actor: AuditActor, now: Date): Promise<OrderRow>;
}

export class OrderExecutor {
  constructor(
    private readonly orders: OrderService,
    private readonly tasks: TaskService,
    private readonly executor: TaskExecutor,
    private readonly payments?: ExecutionPayments,
    /** MARKETS_EXECUTION_DEADLINE_SECONDS in ms: how long the order's `executing` claim holds (orders/order.recovery.ts). */
    private readonly deadlineMs = 600_000,
  ) {}

  async execute(token: string | null | undefined, orderId: string): Promise<OrderExecution> {
    const clock = this.orders.clock;
    const started = new Date(clock.now());
    const deadline = new Date(started.getTime() + this.deadlineMs);
    const claim = await this.orders.agentSqlWrite(
      token,
      orderId,
      (sql, order, session, _machine, read) => this.claim(sql, order, session.actor, read!, started, deadline),
      true,
    );
    let attempt: Attempt;
    try {
      await this.payments?.settleBeforeRun(orderId, claim.actor, claim.payment);
      attempt = await this.executor.attempt(claim.task, claim.route, claim.service, claim.endpoint);
    } catch (error) {
      // Back to ready (the task to its state before) only while the claim is still this call's: a recovered order stays failed.
      await this.orders.store.sqlWrite(async (sql) => {
        const current = await lockOrder(sql, orderId);
        if (current.status !== "executing") return;
        const now = new Date(clock.now());
        await transitionOrder(sql, current, "ready", now);
        await this.tasks.repo.claim(sql, claim.task.id, ["executing"], claim.task.status, now);
      });
      throw error;
    }
    const { order, actor, task, route, service } = claim;
    const { execution, finished } = await this.orders.store.sqlWrite(async (sql) => {
      // The order's row first, as the recovery takes it (then the task's): the two never wait on each other crosswise.
      const current = await lockOrder(sql, orderId);
      let next = "failed" as OrderStatus;
      let now = started;
      let patch: OrderPatch = {};
      // Run, outcome, task, the order's transition and both events in one statement (work/execution.repository.ts).
      const { execution, orderMoved } = await this.executor.recordInTx(sql, task, claim.claimed, route, service, attempt, started, (execution, event) => {
        next = execution.run.status === "succeeded" ? "delivered" : execution.run.status === "handoff" ? "handoff" : "failed";
        now = new Date(clock.now());
        patch = {
          runId: execution.run.id,
          outcomeId: execution.outcome.id,
          handoff: execution.handoff ?? undefined,
          errorMessage: next === "failed" ? `execution failed (${execution.run.errorReason ?? "provider_status"}, HTTP ${execution.httpStatus})` : null,
        };
        const executed: AuditEventInput = {
          kind: "market.order.executed",
          machineId: order.machineId,
          actor,
          occurredAt: now,
          data: { orderId, taskId: task.id, runId: execution.run.id, httpStatus: execution.httpStatus, before: { status: "executing" }, after: { status: next } },
        };
        const record = { orderId, to: next, sources: orderSourcesOf(next), now, handoff: patch.handoff ?? null, errorMessage: patch.errorMessage ?? null };
        return { order: record, events: [workAuditEvent(clock, event), executed] };
      });
      // transitionOrder's checks, in its order: a finished order is ORDER_CLOSED, any other source ORDER_STATE_INVALID.
      assertOpen(current);
      if (!orderMoved) throw MarketsErrors.orderStateInvalid();
      let after = patchedOrder(current, next, now, patch);
      // Only an x402 payment confirms on delivery (its rail is fixed at the intent).
      if (next === "delivered" && this.payments && claim.payment?.rail === "x402") after = await this.payments.autoConfirm(sql, after, actor, now);
      return { execution, finished: after };
    });
    return { ...execution, order: orderView(finished) };
  }

  /** Step 1 inside the order's SQL write transaction (the order locked, its machine and the pairing checked). */
  private async claim(sql: SqlStatement, order: OrderRow, actor: AuditActor, read: NonNullable<OrderWriteRows["execution"]>, started: Date, deadline: Date) {
    if (order.status !== "ready") throw this.orders.stateError(order);
    const repo = this.tasks.repo;
    const existing = order.taskId === null ? null : await repo.task(order.machineId, order.taskId, sql);
    const route: MarketsRoute | null = existing
      ? await repo.route(existing.routeId, sql)
      : {
          id: newId("route"),
          machineId: order.machineId,
          taskId: "",
          serviceId: order.serviceId,
          skillKey: order.skillKey,
          providerKey: order.providerKey,
          executionMode: order.executionMode,
          operation: order.operation,
          score: 1,
          createdAt: started,
        };
    if (!route) throw routeRequired();
    // The order's service and the machine's policies came with the locks (the route's service is the order's).
    const known = route.serviceId === order.serviceId && read.service ? serviceView(read.service) : undefined;
    const { service, endpoint } = await this.executor.prepare(order.machineId, route, sql, known);
    await enforcePolicies(sql, read.policies, policySubjectOf(order.machineId, service), null);
    const patch = { taskId: "", routeId: route.id, executingDeadline: deadline };
    let task: MarketsTask;
    let payment: PaymentRow | null;
    if (existing) {
      // A ready order keeps the task of an attempt that threw before any answer: claimed again from where it was.
      if (!(await repo.claim(sql, existing.id, ["resolved", "failed"], "executing", started, deadline))) throw taskStateInvalid();
      task = existing;
      patch.taskId = task.id;
      await transitionOrder(sql, order, "executing", started, patch);
      payment = this.payments ? await paymentOfOrder(sql, order.id) : null;
    } else {
      task = {
        id: newId("task"),
        machineId: order.machineId,
        skillKey: order.skillKey,
        operation: order.operation,
        input: order.input,
        status: "resolved",
        candidates: [],
        routeId: route.id,
        executingDeadline: null,
        createdAt: started,
        updatedAt: started,
      };
      route.taskId = task.id;
      patch.taskId = task.id;
      const view = taskView(task, route);
      const event = { machineId: order.machineId, actor: actor as never, entityType: "task", entityId: task.id };
      const events = [
        workAuditEvent(this.orders.clock, { ...event, kind: "task.created", payload: { after: view, orderId: order.id } }),
        workAuditEvent(this.orders.clock, { ...event, kind: "task.resolved", payload: { after: view, route: routeView(route), orderId: order.id } }),
      ];
      // Created resolved and claimed in the same statement: stored `executing` at once, nobody saw it between. The
      // order's transition is transitionOrder's (the row is locked and ready, checked above) in the same statement.
      assertOpen(order);
      const claimed = await insertClaimedTask(sql, task, route, deadline, { orderId: order.id, sources: orderSourcesOf("executing") }, events);
      if (!claimed.moved) throw MarketsErrors.orderStateInvalid();
      payment = claimed.payment;
    }
    const after = patchedOrder(order, "executing", started, patch);
    const claimed: MarketsTask = { ...task, status: "executing", updatedAt: started, executingDeadline: deadline };
    return { order: after, actor, task, claimed, route, service, endpoint, payment: this.payments ? payment : null };
  }
}
