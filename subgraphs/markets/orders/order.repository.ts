/**
 * Market order and payment rows: reads, the conditional transitions every state change goes through (the database's
 * triggers back them up, orders/order.states.ts), and the delegation policy's daily limit.
 */
import type { MarketOrder as OrderRow, MarketPayment as PaymentRow, Prisma } from "../../shared/db/generated/client.js";
import type { MarketsTx } from "../common/audit.repository.js";
import { MarketsErrors } from "../common/errors.js";
import { lockRowById } from "../common/row-lock.repository.js";
import { withinDailySpend } from "../common/spend.repository.js";
import { FINISHED_ORDER_STATUSES, orderSourcesOf, paymentSourcesOf, type OrderStatus, type PaymentStatus } from "./order.states.js";

export type { OrderRow, PaymentRow };

export const ORDER_ID = /^ord_[a-z2-7]{16}$/;

/** The order, locked until the transaction ends (FOR UPDATE): concurrent writes on one order run one after another. */
export async function lockOrder(tx: MarketsTx, orderId: string): Promise<OrderRow> {
  if (!ORDER_ID.test(orderId)) throw MarketsErrors.notFound();
  const order = await lockRowById<OrderRow>(tx, "market_order", orderId);
  if (!order) throw MarketsErrors.notFound();
  return order;
}

/** ORDER_CLOSED for confirmed, cancelled or failed orders. */
export function assertOpen(order: OrderRow): void {
  if ((FINISHED_ORDER_STATUSES as readonly string[]).includes(order.status)) throw MarketsErrors.orderClosed();
}

/**
 * Moves the order to `to` only from a status the table allows, in one conditional UPDATE; anything else is
 * ORDER_CLOSED (finished) or ORDER_STATE_INVALID, and nothing changes. `order` is the row the caller locked in this
 * transaction (lockOrder): no one else can have changed it, so the row after is `order` with the patch applied, not
 * read again (the status triggers only check transitions; patches are plain values, `undefined` leaves a field).
 */
export async function transitionOrder(
  tx: MarketsTx,
  order: OrderRow,
  to: OrderStatus,
  now: Date,
  patch: Prisma.MarketOrderUpdateManyMutationInput = {},
): Promise<OrderRow> {
  assertOpen(order);
  const from = orderSourcesOf(to);
  const { count } = await tx.marketOrder.updateMany({ where: { id: order.id, status: { in: from } }, data: { ...patch, status: to, updatedAt: now } });
  if (count !== 1) throw MarketsErrors.orderStateInvalid();
  const after: Record<string, unknown> = { ...order };
  for (const [field, value] of Object.entries(patch)) if (value !== undefined) after[field] = value;
  return { ...(after as OrderRow), status: to, updatedAt: now };
}

/** The payment counterpart of transitionOrder (ORDER_STATE_INVALID when the payment is not in a source status). */
export async function transitionPayment(
  tx: MarketsTx,
  payment: PaymentRow,
  to: PaymentStatus,
  now: Date,
  patch: Prisma.MarketPaymentUpdateManyMutationInput = {},
): Promise<PaymentRow> {
  const from = paymentSourcesOf(to);
  const { count } = await tx.marketPayment.updateMany({ where: { id: payment.id, status: { in: from } }, data: { ...patch, status: to, updatedAt: now } });
  if (count !== 1) throw MarketsErrors.orderStateInvalid();
  return tx.marketPayment.findUniqueOrThrow({ where: { id: payment.id } });
}

/**
 * Would `amount` keep the pairing within `limit` for the UTC day of `now`? The day's spend of the pairing's market
 * orders and stream purchases (common/spend.repository.ts, one sum for both). The caller holds the pairing's row lock
 * (PairingService.authenticate), so two spends of one pairing, on any instance, cannot both pass on the same sum.
 */
export function withinDailyLimit(tx: MarketsTx, pairingId: string, amount: string, limit: number, now: Date): Promise<boolean> {
  return withinDailySpend(tx, { pairingId }, amount, limit, now);
}
