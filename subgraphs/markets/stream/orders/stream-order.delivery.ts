/**
 * `GET /stream/orders/:orderId/delivery?buyerId=` (docs/stream-marketplace.md, order flow): the buyer's un-enveloped
 * delivery body, `{ orderId, ..., access: BuyerAccess[], delivery: { sessionId, mode, status, ... } }`.
 *
 * - Another `buyerId` than the order's gets 404 STREAM_ORDER_NOT_FOUND, the same answer as an unknown order: the
 *   route never says whose an order is nor hands anything to another buyer.
 * - `payment_pending`: 409 STREAM_ORDER_NOT_PAID; `paid` (access not prepared yet): 409 STREAM_ACCESS_NOT_PREPARED;
 *   `cancelled` / `expired`: 409 STREAM_ORDER_STATE_INVALID; a session still `requested` / `preparing`: 409
 *   STREAM_DELIVERY_NOT_READY; `failed`: 409 STREAM_DELIVERY_FAILED.
 * - `access`: only the access rows for the bought chunks, the order's buyer and its key.
 * - mode `platform`: each bought chunk's `url` (the chunk data route, a path on the markets listener the buyer called:
 *   resolve it against that base, as a browser resolves `/path`) with a bearer delivery token
 *   scoped to the order's buyer and chunks, or, for a chunk stored outside the platform, its storage `reference`
 *   (walrus://, s3://, gdrive://). The first answer from a `ready` session marks session and order `delivered`
 *   (the keys and the token are the delivery); later answers repeat the body with a fresh token.
 * - mode `seller`: the seller agent's `deliveryUrl`; the agent marks the delivery `delivered` itself (PATCH).
 */
import type { Clock } from "../../../shared/clock.js";
import { recordAuditEvent } from "../../common/audit.repository.js";
import type { MarketsStore } from "../../common/store.js";
import { buyerIdOf, BUYER_ACTOR } from "./stream-order.service.js";
import { StreamOrderErrors as E } from "./stream-order.errors.js";
import { lockStreamOrder, STREAM_ORDER_ID, transitionDeliverySession, transitionStreamOrder } from "./stream-order.repository.js";
import type { DeliveryTokenIssuer } from "./stream-order.ports.js";

export class StreamOrderDelivery {
  constructor(
    private readonly store: MarketsStore,
    private readonly tokens: DeliveryTokenIssuer,
    private readonly clock: Clock,
  ) {}

  async delivery(orderId: string, buyerIdInput: string) {
    const buyerId = buyerIdOf(buyerIdInput);
    if (!STREAM_ORDER_ID.test(orderId)) throw E.orderNotFound();
    const now = new Date(this.clock.now());
    return this.store.write(async (tx) => {
      const order = await lockStreamOrder(tx, orderId);
      if (order.buyerId !== buyerId) throw E.orderNotFound();
      if (order.status === "payment_pending") throw E.orderNotPaid();
      if (order.status === "paid") throw E.accessNotPrepared();
      if (order.status !== "access_prepared" && order.status !== "delivered") throw E.orderStateInvalid();
      const session = await tx.streamDeliverySession.findFirst({ where: { orderId }, orderBy: [{ createdAt: "desc" }, { id: "desc" }] });
      if (!session || session.status === "requested" || session.status === "preparing") throw E.deliveryNotReady();
      if (session.status === "failed") throw E.deliveryFailed();
      // By buyer, key and bought chunk, not by orderId: one (chunk, buyer, key) row serves every order of that buyer
      // and key (unique), and a later order's prepare-access re-labels it.
      const rows = await tx.streamBuyerAccess.findMany({
        where: { buyerId, publicKeyHex: order.buyerPublicKeyHex, chunkId: { in: order.chunkIds } },
      });
      const byChunk = new Map(rows.map((row) => [row.chunkId, row.access]));
      const access = order.chunkIds.filter((id) => byChunk.has(id)).map((id) => byChunk.get(id));
      let delivery: Record<string, unknown>;
      if (session.mode === "seller") {
        delivery = { sessionId: session.id, mode: session.mode, status: session.status, deliveryUrl: session.deliveryUrl, message: session.message };
      } else {
        const chunks = await tx.streamChunk.findMany({ where: { chunkId: { in: order.chunkIds } } });
        const byId = new Map(chunks.map((chunk) => [chunk.chunkId, chunk]));
        const issued = await this.tokens({ orderId, buyerId, chunkIds: order.chunkIds });
        delivery = {
          sessionId: session.id,
          mode: session.mode,
          status: session.status === "ready" ? "delivered" : session.status,
          token: issued.token,
          tokenType: "Bearer",
          tokenExpiresAt: issued.expiresAt,
          chunks: order.chunkIds.map((chunkId) => {
            const chunk = byId.get(chunkId);
            const stored = chunk?.storageRef ?? null;
            const local = stored === null || stored.startsWith("local:");
            return {
              chunkId,
              encryptedDataHash: chunk?.encryptedDataHash ?? null,
              encryptedSize: chunk ? Number(chunk.encryptedSize) : null,
              ...(local ? { url: `/api/v1/stream/chunks/${encodeURIComponent(chunkId)}/data` } : { reference: stored }),
            };
          }),
        };
        if (session.status === "ready") {
          await transitionDeliverySession(tx, session, "delivered", now);
          await recordAuditEvent(tx, {
            kind: "stream.delivery-session.updated",
            machineId: order.machineId,
            actor: BUYER_ACTOR,
            occurredAt: now,
            data: { sessionId: session.id, orderId, before: { status: "ready" }, after: { status: "delivered" } },
          });
        }
      }
      let status = order.status;
      if (order.status === "access_prepared" && session.mode === "platform") {
        status = (await transitionStreamOrder(tx, order, "delivered", now, { deliveredAt: now })).status;
        await recordAuditEvent(tx, {
          kind: "stream.order.delivered",
          machineId: order.machineId,
          actor: BUYER_ACTOR,
          occurredAt: now,
          data: { orderId, sessionId: session.id, buyerId, before: { status: order.status }, after: { status } },
        });
      }
      return {
        orderId,
        listingId: order.listingId,
        machineId: order.machineId,
        buyerId,
        buyerPublicKeyHex: order.buyerPublicKeyHex,
        status,
        chunkIds: order.chunkIds,
        access,
        delivery,
      };
    });
  }
}
