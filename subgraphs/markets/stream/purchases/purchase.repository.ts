/**
 * Purchase rows (stream_purchase): the lock, the one transition function (the table's trigger enforces the same
 * graph, docs/stream-marketplace.md "States"), and the REST/GraphQL view. Every transition writes its
 * `stream.purchase.*` audit event in the caller's transaction.
 */
import type { StreamPurchase as PurchaseRow } from "../../../shared/db/generated/client.js";
import { recordAuditEvent, type AuditActor, type MarketsTx } from "../../common/audit.repository.js";
import { MarketsErrors } from "../../common/errors.js";
import { PurchaseErrors } from "./purchase.errors.js";
import type { JsonObject } from "../../common/support.js";

export type { PurchaseRow };

export const PURCHASE_ID = /^spur_[a-z2-7]{16}$/;

export const PURCHASE_STATUSES = ["delivery_reserving", "payment_pending", "paid", "delivering", "delivered", "completed", "failed", "cancelled", "expired"] as const;
export type PurchaseStatus = (typeof PURCHASE_STATUSES)[number];

/** The lifecycle (the same pairs as the stream_purchase_transition trigger). */
export const PURCHASE_TRANSITIONS: Readonly<Record<PurchaseStatus, readonly PurchaseStatus[]>> = {
  delivery_reserving: ["payment_pending", "failed", "cancelled"],
  payment_pending: ["paid", "cancelled", "expired"],
  paid: ["delivering"],
  delivering: ["delivered", "failed"],
  delivered: ["completed"],
  completed: [],
  failed: [],
  cancelled: [],
  expired: [],
};

/** The purchase, locked (FOR UPDATE) until the transaction ends; NOT_FOUND for an unknown or malformed ID. */
export async function lockPurchase(tx: MarketsTx, purchaseId: string): Promise<PurchaseRow> {
  if (!PURCHASE_ID.test(purchaseId)) throw MarketsErrors.notFound();
  await tx.$executeRaw`SELECT 1 FROM stream_purchase WHERE id = ${purchaseId} FOR UPDATE`;
  const row = await tx.streamPurchase.findUnique({ where: { id: purchaseId } });
  if (!row) throw MarketsErrors.notFound();
  return row;
}

/** Moves the purchase to `to` (PURCHASE_STATE_INVALID when the lifecycle has no such step) with its audit event. */
export async function transitionPurchase(
  tx: MarketsTx,
  purchase: PurchaseRow,
  to: PurchaseStatus,
  actor: AuditActor,
  now: Date,
  patch: Record<string, unknown> = {},
  data: JsonObject = {},
): Promise<PurchaseRow> {
  const from = purchase.status as PurchaseStatus;
  if (!PURCHASE_TRANSITIONS[from]?.includes(to)) throw PurchaseErrors.stateInvalid();
  const { count } = await tx.streamPurchase.updateMany({ where: { id: purchase.id, status: from }, data: { ...patch, status: to, updatedAt: now } as never });
  if (count !== 1) throw PurchaseErrors.stateInvalid();
  await recordAuditEvent(tx, {
    kind: `stream.purchase.${to.replace(/_/g, "-")}`,
    machineId: purchase.machineId,
    actor,
    occurredAt: now,
    data: { purchaseId: purchase.id, before: { status: from }, after: { status: to }, ...data } as never,
  });
  return tx.streamPurchase.findUniqueOrThrow({ where: { id: purchase.id } });
}

/** The purchase as the API answers it (`{ item }` of the purchase routes). */
export function purchaseView(row: PurchaseRow) {
  const delivery = (row.delivery ?? null) as JsonObject | null;
  return {
    id: row.id,
    status: row.status,
    resource: { type: "stream.listing", listingId: row.listingId, selection: { chunkIds: row.chunkIds } },
    machineId: row.machineId,
    buyer: {
      id: row.buyerId,
      publicKey: { type: "x25519", publicKeyHex: row.buyerPublicKeyHex },
      deliveryCapabilities: row.buyerCapabilities as JsonObject[],
    },
    price: { amount: row.amount, currency: row.currency },
    delivery: delivery && !("failure" in delivery) ? delivery : null,
    failure: delivery && "failure" in delivery ? delivery.failure : null,
    rail: row.rail,
    paymentIntent: (row.paymentIntent ?? null) as JsonObject | null,
    payment: (row.paymentProof ?? null) as JsonObject | null,
    paidAt: row.paidAt?.toISOString() ?? null,
    completedAt: row.completedAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

export type PurchaseView = ReturnType<typeof purchaseView>;
