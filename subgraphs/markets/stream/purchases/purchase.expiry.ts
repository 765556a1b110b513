/**
 * Expiry of unpaid purchases (common/payment.expiry.ts): a purchase still `payment_pending`
 * STREAM_PURCHASE_PAYMENT_TTL_SECONDS after its creation is due; the payment intent or proof call that finds it due
 * (answering PURCHASE_EXPIRED) or the lifecycle job moves it to `expired` with `stream.purchase.expired`, once.
 */
import type { MarketsTx } from "../../common/audit.repository.js";
import { LIFECYCLE_ACTOR, paymentDue, paymentDueAt, sweepExpired, type ExpiringTable, type ExpiryVia } from "../../common/payment.expiry.js";
import { transitionPurchase, type PurchaseRow } from "./purchase.repository.js";

export const purchaseDue = (purchase: PurchaseRow, now: Date, ttlSeconds: number): boolean => paymentDue(purchase, now, ttlSeconds);

/** payment_pending -> expired with `stream.purchase.expired` (transitionPurchase writes it). */
export function expirePurchase(tx: MarketsTx, purchase: PurchaseRow, now: Date, ttlSeconds: number, via: ExpiryVia): Promise<PurchaseRow> {
  return transitionPurchase(tx, purchase, "expired", LIFECYCLE_ACTOR, now, {}, { via, dueAt: paymentDueAt(purchase.createdAt, ttlSeconds).toISOString() });
}

const PURCHASES: ExpiringTable<PurchaseRow> = {
  table: "stream_purchase",
  find: (tx, id) => tx.streamPurchase.findUniqueOrThrow({ where: { id } }),
  expire: expirePurchase,
  // market_spend_day's key: an expired purchase leaves its pairing's total for its day and currency.
  spendOrder: `agent_pairing_id, (created_at AT TIME ZONE 'UTC')::date, upper(currency)`,
};

/** One batch of the job: the count of purchases it expired. */
export const sweepPurchases = (tx: MarketsTx, now: Date, ttlSeconds: number): Promise<number> => sweepExpired(tx, PURCHASES, now, ttlSeconds);
