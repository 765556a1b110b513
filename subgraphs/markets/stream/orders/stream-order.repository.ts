/**
 * Stream order and delivery session rows (docs/stream-marketplace.md, order flow): row locks, the conditional
 * transitions every state change goes through (the database's triggers back them up, stream/orders/stream-order.states.ts), and
 * the views the GraphQL types and the REST items share.
 */
import type { Prisma, StreamDeliverySession as SessionRow, StreamOrder as OrderRow } from "../../../shared/db/generated/client.js";
import type { MarketsTx } from "../../common/audit.repository.js";
import { StreamOrderErrors } from "./stream-order.errors.js";
import { deliverySessionSourcesOf, streamOrderSourcesOf, type DeliverySessionStatus, type StreamOrderStatus } from "./stream-order.states.js";

export type { OrderRow as StreamOrderRow, SessionRow as DeliverySessionRow };

/** `sord_` / `sdel_` + 16 lowercase base32 characters (common/support.ts newId). */
export const STREAM_ORDER_ID = /^sord_[a-z2-7]{16}$/;
export const DELIVERY_SESSION_ID = /^sdel_[a-z2-7]{16}$/;

/** The order, locked until the transaction ends (FOR UPDATE), or STREAM_ORDER_NOT_FOUND. */
export async function lockStreamOrder(tx: MarketsTx, orderId: string): Promise<OrderRow> {
  if (!STREAM_ORDER_ID.test(orderId)) throw StreamOrderErrors.orderNotFound();
  await tx.$executeRaw`SELECT 1 FROM stream_order WHERE id = ${orderId} FOR UPDATE`;
  const order = await tx.streamOrder.findUnique({ where: { id: orderId } });
  if (!order) throw StreamOrderErrors.orderNotFound();
  return order;
}

/** The session, locked until the transaction ends, or STREAM_DELIVERY_SESSION_NOT_FOUND. */
export async function lockDeliverySession(tx: MarketsTx, sessionId: string): Promise<SessionRow> {
  if (!DELIVERY_SESSION_ID.test(sessionId)) throw StreamOrderErrors.sessionNotFound();
  await tx.$executeRaw`SELECT 1 FROM stream_delivery_session WHERE id = ${sessionId} FOR UPDATE`;
  const session = await tx.streamDeliverySession.findUnique({ where: { id: sessionId } });
  if (!session) throw StreamOrderErrors.sessionNotFound();
  return session;
}

/** Moves the order to `to` only from a status the table allows (one conditional UPDATE), else STREAM_ORDER_STATE_INVALID. */
export async function transitionStreamOrder(
  tx: MarketsTx,
  order: OrderRow,
  to: StreamOrderStatus,
  now: Date,
  patch: Prisma.StreamOrderUpdateManyMutationInput = {},
): Promise<OrderRow> {
  const { count } = await tx.streamOrder.updateMany({
    where: { id: order.id, status: { in: streamOrderSourcesOf(to) } },
    data: { ...patch, status: to, updatedAt: now },
  });
  if (count !== 1) throw StreamOrderErrors.orderStateInvalid();
  return tx.streamOrder.findUniqueOrThrow({ where: { id: order.id } });
}

/** The session counterpart (STREAM_DELIVERY_SESSION_STATE_INVALID); moving to its own status only applies the patch. */
export async function transitionDeliverySession(
  tx: MarketsTx,
  session: SessionRow,
  to: DeliverySessionStatus,
  now: Date,
  patch: Prisma.StreamDeliverySessionUpdateManyMutationInput = {},
): Promise<SessionRow> {
  const from = session.status === to ? [to] : deliverySessionSourcesOf(to);
  const { count } = await tx.streamDeliverySession.updateMany({ where: { id: session.id, status: { in: from } }, data: { ...patch, status: to, updatedAt: now } });
  if (count !== 1) throw StreamOrderErrors.sessionStateInvalid();
  return tx.streamDeliverySession.findUniqueOrThrow({ where: { id: session.id } });
}

/** The order's open delivery session (not delivered or failed), newest first. */
export function openSessionOf(tx: MarketsTx, orderId: string): Promise<SessionRow | null> {
  return tx.streamDeliverySession.findFirst({
    where: { orderId, status: { in: ["requested", "preparing", "ready"] } },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
  });
}

export function streamOrderView(row: OrderRow) {
  return {
    id: row.id,
    listingId: row.listingId,
    machineId: row.machineId,
    buyerId: row.buyerId,
    buyerPublicKeyHex: row.buyerPublicKeyHex,
    chunkIds: row.chunkIds,
    status: row.status,
    price: { amount: row.priceAmount, currency: row.priceCurrency },
    paymentReference: row.paymentReference,
    paymentProof: (row.paymentProof as Record<string, unknown> | null) ?? null,
    payerAddress: row.payerAddress,
    paidAt: row.paidAt?.toISOString() ?? null,
    accessPreparedAt: row.accessPreparedAt?.toISOString() ?? null,
    deliveredAt: row.deliveredAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

export type StreamOrderView = ReturnType<typeof streamOrderView>;

export function deliverySessionView(row: SessionRow, order?: OrderRow | null) {
  return {
    id: row.id,
    machineId: row.machineId,
    orderId: row.orderId,
    mode: row.mode,
    status: row.status,
    deliveryUrl: row.deliveryUrl,
    message: row.message,
    // What the seller's agent needs to prepare the access: the order's buyer, key and chunks.
    buyerId: order?.buyerId ?? null,
    buyerPublicKeyHex: order?.buyerPublicKeyHex ?? null,
    chunkIds: order?.chunkIds ?? [],
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

export type DeliverySessionView = ReturnType<typeof deliverySessionView>;
