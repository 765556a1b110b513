/**
 * Expiry of unpaid stream orders (common/payment.expiry.ts): an order still `payment_pending`
 * STREAM_ORDER_PAYMENT_TTL_SECONDS after its creation is due; the payment call that finds it due or the lifecycle job
 * moves it to `expired` with `stream.order.expired`, once.
 */
import { recordAuditEvent, type MarketsTx } from "../../common/audit.repository.js";
import { LIFECYCLE_ACTOR, paymentDueAt, sweepExpired, type ExpiringTable, type ExpiryVia } from "../../common/payment.expiry.js";
import { transitionStreamOrder, type StreamOrderRow } from "./stream-order.repository.js";

/** payment_pending -> expired with `stream.order.expired` (`via`: `payment` for lazy expiry, `sweep` for the job). */
export async function expireStreamOrder(tx: MarketsTx, order: StreamOrderRow, now: Date, ttlSeconds: number, via: ExpiryVia): Promise<StreamOrderRow> {
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

const STREAM_ORDERS: ExpiringTable<StreamOrderRow> = {
  table: "stream_order",
  find: (tx, id) => tx.streamOrder.findUniqueOrThrow({ where: { id } }),
  expire: expireStreamOrder,
};

/** One batch of the job: the count of stream orders it expired. */
export const sweepStreamOrders = (tx: MarketsTx, now: Date, ttlSeconds: number): Promise<number> => sweepExpired(tx, STREAM_ORDERS, now, ttlSeconds);
