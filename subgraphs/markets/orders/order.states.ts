/**
 * The order and payment state machines of public notes 2.7, as the services use them for conditional updates. The
 * database enforces the same tables with triggers (migrations 20261124005841_market_pairings_orders_payments,
 * 20261126151500_market_payment_claims and 20261126173100_market_dispute_resolution):
 * an update that is not a listed transition fails whatever the caller, so concurrent calls cannot leave a state
 * behind that the table does not allow. test/markets/orders/order-states.test.ts proves the two agree.
 *
 * MarketOrderStatus: created -> payment_pending -> ready -> executing -> delivered -> confirmed, with side exits
 * handoff, disputed, failed, cancelled. confirmed, cancelled and failed are finished (ORDER_CLOSED); every other
 * status is open (it blocks revoking the pairing).
 */
export const ORDER_STATUSES = ["created", "payment_pending", "ready", "executing", "delivered", "confirmed", "handoff", "disputed", "failed", "cancelled"] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

export const FINISHED_ORDER_STATUSES: readonly OrderStatus[] = ["confirmed", "cancelled", "failed"];
export const OPEN_ORDER_STATUSES: readonly OrderStatus[] = ORDER_STATUSES.filter((s) => !FINISHED_ORDER_STATUSES.includes(s));

export const ORDER_TRANSITIONS: Readonly<Record<OrderStatus, readonly OrderStatus[]>> = {
  created: ["payment_pending", "ready", "cancelled"],
  payment_pending: ["ready", "cancelled"],
  ready: ["executing", "cancelled"],
  // executing -> ready: the execution could not start (no runtime endpoint); x402 orders confirm on delivery.
  executing: ["ready", "delivered", "handoff", "failed", "confirmed"],
  delivered: ["confirmed", "disputed"],
  handoff: ["confirmed", "disputed"],
  disputed: ["confirmed", "cancelled"],
  confirmed: [],
  failed: [],
  cancelled: [],
};

/**
 * MarketPaymentStatus: intent_created -> held -> release_pending -> released, plus not_required, refunded, frozen, and
 * the claims written under the order's row lock before an escrow transaction is sent (orders/payments/settlement.service.ts):
 * lock_pending (escrow lock; back to intent_created when the lock failed and nothing is locked) and refund_pending.
 * held -> refunded is no longer used by the services; the database keeps it legal for replicas of the previous
 * release during an upgrade.
 */
export const PAYMENT_STATUSES = ["intent_created", "held", "release_pending", "released", "not_required", "refunded", "frozen", "refund_pending", "lock_pending"] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

export const PAYMENT_INITIAL: readonly PaymentStatus[] = ["intent_created", "not_required"];

export const PAYMENT_TRANSITIONS: Readonly<Record<PaymentStatus, readonly PaymentStatus[]>> = {
  intent_created: ["held", "refunded", "lock_pending"],
  lock_pending: ["held", "intent_created"],
  held: ["release_pending", "released", "frozen", "refunded", "refund_pending"],
  refund_pending: ["refunded"],
  release_pending: ["released", "frozen"],
  // The arbiter's resolution (orders/dispute.service.ts): an escrow claims release_pending or refund_pending before
  // it is sent; a rail holding nothing on chain is recorded released directly.
  frozen: ["released", "refunded", "release_pending", "refund_pending"],
  released: [],
  not_required: [],
  refunded: [],
};

/** For each status, the statuses that may move to it (worked out once: every conditional update names them). */
function sourcesByTarget<S extends string>(statuses: readonly S[], transitions: Readonly<Record<S, readonly S[]>>): ReadonlyMap<S, readonly S[]> {
  return new Map(statuses.map((to) => [to, Object.freeze(statuses.filter((from) => transitions[from].includes(to)))]));
}
const ORDER_SOURCES = sourcesByTarget(ORDER_STATUSES, ORDER_TRANSITIONS);
const PAYMENT_SOURCES = sourcesByTarget(PAYMENT_STATUSES, PAYMENT_TRANSITIONS);

/** The statuses an order may move to `to` from. */
export const orderSourcesOf = (to: OrderStatus): readonly OrderStatus[] => ORDER_SOURCES.get(to)!;
export const paymentSourcesOf = (to: PaymentStatus): readonly PaymentStatus[] => PAYMENT_SOURCES.get(to)!;

/** MarketPaymentRailType (public notes 2.7). */
export const RAIL_TYPES = ["not-required", "wallet", "x402", "xvv42", "vault-stripe", "wdk-usdt-transfer", "escrow", "offchain-record", "external", "onchain-escrow"] as const;
export type RailType = (typeof RAIL_TYPES)[number];
