/**
 * Expiry of unpaid stream orders (docs/stream-marketplace.md "Expiry"). An order still `payment_pending`
 * STREAM_ORDER_PAYMENT_TTL_SECONDS after its creation is due: the payment call that finds it due moves it to `expired`
 * itself and answers STREAM_ORDER_EXPIRED (lazy expiry, so a refusal never depends on the job's timing), and the
 * lifecycle job (lifecycle/lifecycle.sweep.ts) expires the due orders nobody calls. Either way the change and its
 * `stream.order.expired` event commit in one transaction, under the order's row lock, once.
 *
 * The job leaves an order alone for SWEEP_GRACE_MS after it fell due: a payment call that started in time judges the
 * due time at its start and may still be checking its proof on chain; it records `paid` unless the job got there first.
 */
import type { AuditActor, MarketsTx } from "../../common/audit.repository.js";
import { recordAuditEvent } from "../../common/audit.repository.js";
import { transitionStreamOrder, type StreamOrderRow } from "./stream-order.repository.js";

/** Who expires a row: the platform's lifecycle (the job, or a payment call that found the row due). */
export const LIFECYCLE_ACTOR: AuditActor = { type: "system", id: "lifecycle" };
/** Rows one sweep transaction handles at most (the job runs batches until a short one). */
export const SWEEP_BATCH = 100;
/** How long after its due time the job waits before expiring a row (longer than any proof's chain work). */
export const SWEEP_GRACE_MS = 5 * 60_000;

/** When an unpaid row created at `createdAt` falls due. */
export const paymentDueAt = (createdAt: Date, ttlSeconds: number): Date => new Date(createdAt.getTime() + ttlSeconds * 1000);

/** payment_pending -> expired with `stream.order.expired` (`via`: `payment` for lazy expiry, `sweep` for the job). */
export async function expireStreamOrder(tx: MarketsTx, order: StreamOrderRow, now: Date, ttlSeconds: number, via: "payment" | "sweep"): Promise<StreamOrderRow> {
  const after = await transitionStreamOrder(tx, order, "expired", now);
  await recordAuditEvent(tx, {
    kind: "stream.order.expired",
    machineId: order.machineId,
    actor: LIFECYCLE_ACTOR,
    occurredAt: now,
    data: { orderId: order.id, via, dueAt: paymentDueAt(order.createdAt, ttlSeconds).toISOString(), before: { status: order.status }, after: { status: after.status } },
  });
  return after;
}

/**
 * One batch of the job: locks up to SWEEP_BATCH orders due for at least SWEEP_GRACE_MS, skipping rows another replica's
 * sweep or a payment call holds (SKIP LOCKED: they are theirs), and expires them in this transaction. Returns the count.
 */
export async function sweepStreamOrders(tx: MarketsTx, now: Date, ttlSeconds: number): Promise<number> {
  const cutoff = new Date(now.getTime() - ttlSeconds * 1000 - SWEEP_GRACE_MS);
  const due = await tx.$queryRaw<Array<{ id: string }>>`
    SELECT id FROM stream_order WHERE status = 'payment_pending' AND created_at <= ${cutoff}
    ORDER BY created_at, id LIMIT ${SWEEP_BATCH} FOR UPDATE SKIP LOCKED`;
  let expired = 0;
  for (const { id } of due) {
    const order = await tx.streamOrder.findUniqueOrThrow({ where: { id } });
    if (order.status !== "payment_pending") continue;
    await expireStreamOrder(tx, order, now, ttlSeconds, "sweep");
    expired += 1;
  }
  return expired;
}
