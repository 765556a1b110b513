/**
 * Expiry of unpaid purchases (docs/stream-marketplace.md "Expiry"), as stream orders' (stream/orders/stream-order.expiry.ts):
 * a purchase still `payment_pending` STREAM_PURCHASE_PAYMENT_TTL_SECONDS after its creation is due. The payment
 * intent or proof call that finds it due expires it (committed) and answers PURCHASE_EXPIRED; the lifecycle job expires
 * the others SWEEP_GRACE_MS after they fell due. `stream.purchase.expired` commits with the change, once.
 */
import type { MarketsTx } from "../../common/audit.repository.js";
import { LIFECYCLE_ACTOR, paymentDueAt, SWEEP_BATCH, SWEEP_GRACE_MS } from "../orders/stream-order.expiry.js";
import { transitionPurchase, type PurchaseRow } from "./purchase.repository.js";

export const purchaseDue = (purchase: PurchaseRow, now: Date, ttlSeconds: number): boolean =>
  purchase.status === "payment_pending" && now.getTime() >= paymentDueAt(purchase.createdAt, ttlSeconds).getTime();

/** payment_pending -> expired with `stream.purchase.expired` (transitionPurchase writes it). */
export function expirePurchase(tx: MarketsTx, purchase: PurchaseRow, now: Date, ttlSeconds: number, via: "payment" | "sweep"): Promise<PurchaseRow> {
  return transitionPurchase(tx, purchase, "expired", LIFECYCLE_ACTOR, now, {}, { via, dueAt: paymentDueAt(purchase.createdAt, ttlSeconds).toISOString() });
}

/** One batch of the job (SKIP LOCKED, as sweepStreamOrders): the count of purchases it expired. */
export async function sweepPurchases(tx: MarketsTx, now: Date, ttlSeconds: number): Promise<number> {
  const cutoff = new Date(now.getTime() - ttlSeconds * 1000 - SWEEP_GRACE_MS);
  const due = await tx.$queryRaw<Array<{ id: string }>>`
    SELECT id FROM stream_purchase WHERE status = 'payment_pending' AND created_at <= ${cutoff}
    ORDER BY created_at, id LIMIT ${SWEEP_BATCH} FOR UPDATE SKIP LOCKED`;
  let expired = 0;
  for (const { id } of due) {
    const purchase = await tx.streamPurchase.findUniqueOrThrow({ where: { id } });
    if (purchase.status !== "payment_pending") continue;
    await expirePurchase(tx, purchase, now, ttlSeconds, "sweep");
    expired += 1;
  }
  return expired;
}
