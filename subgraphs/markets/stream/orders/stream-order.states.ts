/**
 * The stream order and delivery session state machines of docs/stream-marketplace.md ("States"), as the services use
 * them for conditional updates. The database enforces the same tables with triggers (migration
 * *_stream_marketplace): an update that is not a listed transition fails whatever the caller.
 * test/stream/orders/orders-states.test.ts tries every (from, to) pair against the database and proves the two agree.
 *
 * Stream order: payment_pending -> paid -> access_prepared -> delivered; payment_pending -> cancelled | expired.
 * Delivery session: requested -> preparing -> ready -> delivered | failed; requested -> ready | failed;
 * preparing -> failed.
 */
export const STREAM_ORDER_STATUSES = ["payment_pending", "paid", "access_prepared", "delivered", "cancelled", "expired"] as const;
export type StreamOrderStatus = (typeof STREAM_ORDER_STATUSES)[number];

export const STREAM_ORDER_TRANSITIONS: Readonly<Record<StreamOrderStatus, readonly StreamOrderStatus[]>> = {
  payment_pending: ["paid", "cancelled", "expired"],
  paid: ["access_prepared"],
  access_prepared: ["delivered"],
  delivered: [],
  cancelled: [],
  expired: [],
};

export const DELIVERY_SESSION_STATUSES = ["requested", "preparing", "ready", "delivered", "failed"] as const;
export type DeliverySessionStatus = (typeof DELIVERY_SESSION_STATUSES)[number];

export const DELIVERY_SESSION_TRANSITIONS: Readonly<Record<DeliverySessionStatus, readonly DeliverySessionStatus[]>> = {
  requested: ["preparing", "ready", "failed"],
  preparing: ["ready", "failed"],
  ready: ["delivered", "failed"],
  delivered: [],
  failed: [],
};

/** The statuses a row may move to `to` from. */
export const streamOrderSourcesOf = (to: StreamOrderStatus): StreamOrderStatus[] =>
  STREAM_ORDER_STATUSES.filter((from) => STREAM_ORDER_TRANSITIONS[from].includes(to));
export const deliverySessionSourcesOf = (to: DeliverySessionStatus): DeliverySessionStatus[] =>
  DELIVERY_SESSION_STATUSES.filter((from) => DELIVERY_SESSION_TRANSITIONS[from].includes(to));
