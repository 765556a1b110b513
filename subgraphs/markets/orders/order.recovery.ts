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
 * (refund_pending -> refunded, `market.payment.refunded`). A claim left by a failed send is completed by the lifecycle
 * job (`completeRefunds`) once it is REFUND_RETRY_AFTER_MS old, or earlier by the agent's refund call, as any refund
 * claim (docs/markets-payments.md): the chain is read first (a refund that landed is recorded, not sent again), else
 * the refund is sent once. Other payments stay as they are (an x402 settlement stays held, as after any failed
 * execution).
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

/**
 * How old a recovery's refund claim must be before the job retries it: longer than any send and its receipt wait, so
 * the job never races the recovery's own send. Each retry re-stamps the claim first, so replicas retry it once.
 */
export const REFUND_RETRY_AFTER_MS = 5 * 60_000;

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

  /**
   * The job's share of refund claims a recovery left behind (its send failed): recovered orders whose escrowed payment
   * is still `refund_pending` REFUND_RETRY_AFTER_MS after the claim, oldest first, at most `batch` per run. Each claim is
   * taken for this retry under the order's row lock (its `updatedAt` re-stamped, only if unchanged, so one replica
   * wins), then completed from the chain: recorded if the refund landed, else sent once. A send that fails again is
   * logged and left for the next run. Returns the count completed.
   */
  async completeRefunds(batch = 100): Promise<number> {
    const now = new Date(this.clock.now());
    const cutoff = new Date(now.getTime() - REFUND_RETRY_AFTER_MS);
    const claims = await this.store.read(async (prisma) => {
      const pending = await prisma.marketPayment.findMany({
        where: { rail: "onchain-escrow", status: "refund_pending", updatedAt: { lte: cutoff } },
        orderBy: [{ updatedAt: "asc" }, { id: "asc" }],
        take: batch,
        select: { id: true, orderId: true, updatedAt: true },
      });
      const recovered = await prisma.marketOrder.findMany({
        where: { id: { in: pending.map((p) => p.orderId) }, status: "failed", errorMessage: RECOVERED_ERROR_MESSAGE },
        select: { id: true },
      });
      const ids = new Set(recovered.map((o) => o.id));
      return pending.filter((p) => ids.has(p.orderId));
    });
    let completed = 0;
    for (const claim of claims) {
      const taken = await this.store.write(async (tx) => {
        await lockOrder(tx, claim.orderId);
        const { count } = await tx.marketPayment.updateMany({
          where: { id: claim.id, status: "refund_pending", updatedAt: claim.updatedAt },
          data: { updatedAt: now },
        });
        return count === 1;
      });
      if (!taken) continue;
      try {
        await this.refund(claim.orderId);
        completed += 1;
      } catch (error) {
        this.log(error);
      }
    }
    return completed;
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
