/**
 * Recovery of a market order whose `executing` claim passed its deadline (docs/markets-orders.md "Execution deadline").
 *
 * Execute claims ready -> executing with `executingDeadline` (MARKETS_EXECUTION_DEADLINE_SECONDS, at least the provider
 * timeout + 30 s), so an order still executing past it belongs to a process that died or stalled. Whether that process
 * called the provider cannot be known (it may have died after the call and before recording it), so the order is
 * never run again: it ends `failed`, the one exit that cannot call the provider twice (back to `ready` would let the
 * next execute call it again). In one transaction under the order's row lock: the order failed, its task recovered
 * (work/task.service.ts recoverInTx), an escrowed payment (`onchain-escrow`, `held`) claimed for refund
 * (held -> refund_pending), and `market.order.recovered`. Then the refund is sent once (escrowOnce) and recorded
 * (refund_pending -> refunded, `market.payment.refunded`); a claim left by a failed send is completed by the agent's
 * refund call, as any refund claim (docs/markets-payments.md). Other payments stay as they are (an x402 settlement
 * stays held, as after any failed execution).
 *
 * Run by the lifecycle job and, lazily, before any call on the order (OrderService.get and agentWrite): exactly one of
 * them recovers it, the others find it failed under the lock.
 */
import type { Clock } from "../../shared/clock.js";
import { recordAuditEvent } from "../common/audit.repository.js";
import type { MarketsStore } from "../common/store.js";
import type { JsonObject } from "../common/support.js";
import { executionDue, LIFECYCLE_TASK_ACTOR, type TaskService } from "../work/task.service.js";
import { lockOrder, transitionOrder, transitionPayment } from "./order.repository.js";
import { escrowOnce } from "./payments/escrow.claims.js";
import type { PaymentChain } from "./payments/index.js";

export const RECOVERED_ERROR_MESSAGE = "execution deadline passed: the provider may have been called, so the order is not run again";

export class OrderRecovery {
  constructor(
    private readonly store: MarketsStore,
    private readonly tasks: TaskService,
    private readonly chain: PaymentChain,
    private readonly clock: Clock,
    private readonly log: (error: unknown) => void,
  ) {}

  /** Lazy recovery before a call on the order: a cheap read, and the recovery only when the order is due. */
  async recoverIfDue(orderId: string): Promise<boolean> {
    const now = new Date(this.clock.now());
    const row = await this.store.read((prisma) => prisma.marketOrder.findUnique({ where: { id: orderId }, select: { status: true, executingDeadline: true } }));
    if (!row || !executionDue(row, now)) return false;
    return this.recover(orderId);
  }

  /** Recovers the order if it is still executing past its deadline; true when this call did. */
  async recover(orderId: string): Promise<boolean> {
    const now = new Date(this.clock.now());
    const done = await this.store.write(async (tx) => {
      const order = await lockOrder(tx, orderId);
      if (!executionDue(order, now)) return null;
      const failed = await transitionOrder(tx, order, "failed", now, { errorMessage: RECOVERED_ERROR_MESSAGE });
      const taskRecovered = order.taskId ? await this.tasks.recoverInTx(tx, order.taskId, now, true) : false;
      const payment = await tx.marketPayment.findUnique({ where: { orderId } });
      const refund = payment?.rail === "onchain-escrow" && payment.status === "held";
      if (refund) await transitionPayment(tx, payment, "refund_pending", now);
      await recordAuditEvent(tx, {
        kind: "market.order.recovered",
        machineId: order.machineId,
        actor: LIFECYCLE_TASK_ACTOR,
        occurredAt: now,
        data: {
          orderId,
          taskId: order.taskId,
          taskRecovered,
          reason: "execution_deadline",
          deadline: order.executingDeadline?.toISOString() ?? null,
          paymentStatus: refund ? "refund_pending" : (payment?.status ?? null),
          before: { status: order.status },
          after: { status: failed.status },
        },
      });
      return { refund };
    });
    // A failed send keeps the refund claim for the agent's refund call; the recovery itself has committed.
    if (done?.refund) await this.refund(orderId).catch((error) => this.log(error));
    return done !== null;
  }

  /** The job's share: every order executing past its deadline (oldest first), each recovered under its own lock. */
  async sweep(batch = 100): Promise<number> {
    const now = new Date(this.clock.now());
    const due = await this.store.read((prisma) =>
      prisma.marketOrder.findMany({
        where: { status: "executing", executingDeadline: { lte: now } },
        orderBy: [{ executingDeadline: "asc" }, { id: "asc" }],
        take: batch,
        select: { id: true },
      }),
    );
    let recovered = 0;
    for (const { id } of due) if (await this.recover(id)) recovered += 1;
    return recovered;
  }

  /** The recovered order's escrow refund: sent once, then recorded (a concurrent refund call may record it first). */
  private async refund(orderId: string): Promise<void> {
    const txHash = await escrowOnce(this.chain.escrow(), orderId, "refund");
    await this.store.write(async (tx) => {
      const order = await lockOrder(tx, orderId);
      const payment = await tx.marketPayment.findUniqueOrThrow({ where: { orderId } });
      if (payment.status !== "refund_pending") return;
      const now = new Date(this.clock.now());
      const refunded = await transitionPayment(tx, payment, "refunded", now, {
        details: { ...(payment.details as JsonObject), refund: { txHash } } as never,
      });
      await recordAuditEvent(tx, {
        kind: "market.payment.refunded",
        machineId: order.machineId,
        actor: LIFECYCLE_TASK_ACTOR,
        occurredAt: now,
        data: { orderId, paymentId: payment.id, rail: payment.rail, txHash, recovered: true, before: { status: "held" }, after: { status: refunded.status } },
      });
    });
  }
}
