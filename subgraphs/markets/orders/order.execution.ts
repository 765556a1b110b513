/**
 * `POST /market/orders/:orderId/execute` (public notes 2.5, 2.7): materialises a `ready` order as a task with its
 * route (the order's service and operation) and runs it through the task executor (work/task.executor.ts).
 *
 * 1. One transaction: the order (locked) ready -> executing; on the first attempt a task (resolved) and its route
 *    are created with task.created and task.resolved events.
 * 2. The executor runs the task (provider call or handoff), recording run, outcome and the task's event.
 * 3. One transaction: executing -> delivered (provider 2xx), handoff (external-handoff) or failed (anything else),
 *    with the task, route, run and outcome IDs, and `market.order.executed`.
 * The claim of step 1 carries a deadline (MARKETS_EXECUTION_DEADLINE_SECONDS): an order found executing past it was
 * left by a process that died or stalled, and is recovered `failed` without calling the provider again
 * (orders/order.recovery.ts); a late step 3 then finds it failed and records nothing.
 * When the executor refuses before calling anything (RUNTIME_ENDPOINT_REQUIRED, ...) the order goes back to ready
 * and the refusal is the answer. The answer's status is the execution's (the provider's status, 202 for a handoff).
 */
import { recordAuditEvent, type MarketsTx } from "../common/audit.repository.js";
import type { Execution, TaskExecutor } from "../work/task.executor.js";
import type { TaskService } from "../work/task.service.js";
import { routeView, taskView } from "../work/task.views.js";
import { lockOrder, transitionOrder, type OrderRow } from "./order.repository.js";
import { orderView, type OrderService, type OrderView } from "./order.service.js";
import { newId } from "../common/support.js";

export interface OrderExecution extends Execution {
  order: OrderView;
}

/** The payment side of execute (orders/payments/settlement.service.ts): x402 settles before the run and confirms on delivery. */
export interface ExecutionPayments {
  settleBeforeRun(orderId: string, actor: Parameters<typeof recordAuditEvent>[1]["actor"]): Promise<void>;
  autoConfirm(tx: MarketsTx, order: OrderRow, actor: Parameters<typeof recordAuditEvent>[1]["actor"], now: Date): Promise<OrderRow>;
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
    const { order, actor } = await this.orders.agentWrite(token, orderId, async (tx, order, session) => {
      if (order.status !== "ready") throw this.orders.stateError(order);
      let taskId = order.taskId;
      let routeId = order.routeId;
      if (taskId === null) {
        taskId = newId("task");
        routeId = newId("route");
        const task = await tx.marketsTask.create({
          data: {
            id: taskId,
            machineId: order.machineId,
            skillKey: order.skillKey,
            operation: order.operation,
            input: order.input as never,
            status: "resolved",
            candidates: [],
            routeId,
            createdAt: started,
            updatedAt: started,
          },
        });
        const route = await tx.marketsRoute.create({
          data: {
            id: routeId,
            machineId: order.machineId,
            taskId,
            serviceId: order.serviceId,
            skillKey: order.skillKey,
            providerKey: order.providerKey,
            executionMode: order.executionMode,
            operation: order.operation,
            score: 1,
            createdAt: started,
          },
        });
        const view = taskView(task, route);
        const event = { machineId: order.machineId, actor: session.actor as never, entityType: "task", entityId: taskId };
        await this.tasks.audit(tx, { ...event, kind: "task.created", payload: { after: view, orderId } });
        await this.tasks.audit(tx, { ...event, kind: "task.resolved", payload: { after: view, route: routeView(route), orderId } });
      }
      const after = await transitionOrder(tx, order, "executing", started, { taskId, routeId, executingDeadline: new Date(started.getTime() + this.deadlineMs) });
      return { order: after, actor: session.actor };
    });
    let execution: Execution;
    try {
      await this.payments?.settleBeforeRun(orderId, actor);
      execution = await this.executor.execute(order.machineId, order.taskId!);
    } catch (error) {
      // Back to ready only while the claim is still this call's: a recovered (failed) order stays failed.
      await this.orders.store.write(async (tx) => {
        const current = await lockOrder(tx, orderId);
        if (current.status === "executing") await transitionOrder(tx, current, "ready", new Date(clock.now()));
      });
      throw error;
    }
    const next = execution.run.status === "succeeded" ? "delivered" : execution.run.status === "handoff" ? "handoff" : "failed";
    const finished = await this.orders.store.write(async (tx) => {
      const current = await lockOrder(tx, orderId);
      const now = new Date(clock.now());
      let after = await transitionOrder(tx, current, next, now, {
        runId: execution.run.id,
        outcomeId: execution.outcome.id,
        handoff: (execution.handoff ?? undefined) as never,
        errorMessage: next === "failed" ? `execution failed (${execution.run.errorReason ?? "provider_status"}, HTTP ${execution.httpStatus})` : null,
      });
      await recordAuditEvent(tx, {
        kind: "market.order.executed",
        machineId: order.machineId,
        actor,
        occurredAt: now,
        data: { orderId, taskId: order.taskId, runId: execution.run.id, httpStatus: execution.httpStatus, before: { status: "executing" }, after: { status: next } },
      });
      if (next === "delivered" && this.payments) after = await this.payments.autoConfirm(tx, after, actor, now);
      return after;
    });
    return { ...execution, order: orderView(finished) };
  }
}
