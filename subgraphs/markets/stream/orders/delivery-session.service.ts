/**
 * The seller side of a stream order's delivery (docs/stream-marketplace.md, order flow), all as the machine agent of
 * the order's machine (global rule 1 first):
 *
 * - `prepareAccess(orderId, { machineId, items, delivery? })`: only on a `paid` order. `items` are
 *   peaq.stream.buyer-access.v1 entries (formats library `parseAccess`), exactly one per bought chunk, each to the
 *   order's `buyerId` and `buyerPublicKeyHex`; they are stored in stream_buyer_access with the order's ID. The order
 *   moves to `access_prepared`; its delivery session (created `requested` when the order was paid) moves to `ready`
 *   in mode `platform` (the platform serves the ciphertext: chunk data route + bearer delivery token, or the chunks'
 *   storage references) or to `preparing` in mode `seller` (the agent then PATCHes `ready` with its `deliveryUrl`).
 * - `poll(machineId, statuses)`: the machine's sessions in those statuses (default `requested`), oldest first, with
 *   the order's buyer, key and chunks (what preparing the access needs).
 * - `patch(sessionId, ...)`: status (the table's transitions), `deliveryUrl`, `message`. A `seller` session becomes
 *   `ready` only with a deliveryUrl; `delivered` needs the order's access prepared and moves the order to `delivered`.
 */
import type { Clock } from "../../../shared/clock.js";
import { recordAuditEvent, type MarketsTx } from "../../common/audit.repository.js";
import type { MarketsStore } from "../../common/store.js";
import { parseAccess, type BuyerAccess } from "../access.js";
import { StreamOrderErrors as E } from "./stream-order.errors.js";
import { DELIVERY_SESSION_STATUSES, type DeliverySessionStatus } from "./stream-order.states.js";
import {
  deliverySessionView,
  lockDeliverySession,
  lockStreamOrder,
  openSessionOf,
  streamOrderView,
  transitionDeliverySession,
  transitionStreamOrder,
} from "./stream-order.repository.js";
import type { AgentCredentials, StreamAgentAuth } from "./stream-order.ports.js";
import { newId, pageLimit } from "../../common/support.js";

export const DELIVERY_MODES = ["platform", "seller"] as const;
const MAX_ITEMS = 10_000;
const DELIVERY_URL = /^(https?:\/\/|walrus:\/\/|s3:\/\/|gdrive:\/\/)[^\s]+$/;

export interface PrepareAccessInput extends AgentCredentials {
  machineId: string;
  items: unknown;
  mode?: string | null;
}

export interface PatchSessionInput extends AgentCredentials {
  machineId: string;
  status?: string | null;
  deliveryUrl?: string | null;
  message?: string | null;
}

/** The items as buyer-access entries (formats library), or VALIDATION_ERROR / STREAM_ORDER_ACCESS_INVALID. */
function accessItems(items: unknown): BuyerAccess[] {
  if (!Array.isArray(items) || items.length === 0 || items.length > MAX_ITEMS) throw E.validation();
  return items.map((item, index) => {
    try {
      return parseAccess(item, index);
    } catch {
      throw E.accessInvalid();
    }
  });
}

const agentActor = (agentId: string) => ({ type: "machine-agent" as const, id: agentId });

export class DeliverySessionService {
  constructor(
    private readonly store: MarketsStore,
    private readonly agents: StreamAgentAuth,
    private readonly clock: Clock,
  ) {}

  /** Checks the agent, then the machine (rule 1), inside `tx`. */
  private async seller(tx: MarketsTx, machineId: string, credentials: AgentCredentials): Promise<string> {
    return (await this.agents(tx, machineId, credentials)).agentId;
  }

  async prepareAccess(orderId: string, input: PrepareAccessInput) {
    const mode = input.mode ?? "platform";
    if (!(DELIVERY_MODES as readonly string[]).includes(mode)) throw E.validation();
    const now = new Date(this.clock.now());
    return this.store.write(async (tx) => {
      // Rule 1 and the agent first (global rule 1 answers before any other check of a route naming a machine).
      const agentId = await this.seller(tx, input.machineId, input);
      const items = accessItems(input.items);
      const order = await lockStreamOrder(tx, orderId);
      if (order.machineId !== input.machineId) throw E.orderNotFound();
      if (order.status !== "paid") throw E.orderStateInvalid();
      const chunks = items.map((item) => item.chunkId);
      const exact = chunks.length === order.chunkIds.length && new Set(chunks).size === chunks.length && chunks.every((id) => order.chunkIds.includes(id));
      const toBuyer = items.every((item) => item.buyer.recipientId === order.buyerId && item.buyer.publicKeyHex.toLowerCase() === order.buyerPublicKeyHex);
      if (!exact || !toBuyer) throw E.accessMismatch();
      const access = items.map((item) => ({ ...item, buyer: { ...item.buyer, publicKeyHex: order.buyerPublicKeyHex, wrappedKeyHex: item.buyer.wrappedKeyHex.toLowerCase() } }));
      for (const item of access) {
        const row = { machineId: order.machineId, wrappedKeyHex: item.buyer.wrappedKeyHex, orderId: order.id, access: item as never };
        await tx.streamBuyerAccess.upsert({
          where: { chunkId_buyerId_publicKeyHex: { chunkId: item.chunkId, buyerId: order.buyerId, publicKeyHex: order.buyerPublicKeyHex } },
          create: { id: newId("sacc"), chunkId: item.chunkId, buyerId: order.buyerId, publicKeyHex: order.buyerPublicKeyHex, createdAt: now, ...row },
          update: row,
        });
      }
      const after = await transitionStreamOrder(tx, order, "access_prepared", now, { accessPreparedAt: now });
      let session = await openSessionOf(tx, order.id);
      session ??= await tx.streamDeliverySession.create({
        data: { id: newId("sdel"), machineId: order.machineId, orderId: order.id, mode, status: "requested", createdAt: now, updatedAt: now },
      });
      const target: DeliverySessionStatus = mode === "platform" ? "ready" : session.status === "ready" ? "ready" : "preparing";
      const before = session.status;
      session = await transitionDeliverySession(tx, session, target, now, { mode });
      const actor = agentActor(agentId);
      await recordAuditEvent(tx, {
        kind: "stream.order.access-prepared",
        machineId: order.machineId,
        actor,
        occurredAt: now,
        data: { orderId, chunkIds: order.chunkIds, buyerId: order.buyerId, before: { status: order.status }, after: { status: after.status } },
      });
      await recordAuditEvent(tx, {
        kind: "stream.delivery-session.updated",
        machineId: order.machineId,
        actor,
        occurredAt: now,
        data: { sessionId: session.id, orderId, mode, before: { status: before }, after: { status: session.status } },
      });
      return { item: streamOrderView(after), access, deliverySession: deliverySessionView(session, after) };
    });
  }

  async poll(input: AgentCredentials & { machineId: string; statuses?: string[] | null; limit?: number | null }) {
    const statuses = input.statuses ?? ["requested"];
    const known = DELIVERY_SESSION_STATUSES as readonly string[];
    if (statuses.length === 0 || statuses.length > known.length || new Set(statuses).size !== statuses.length || !statuses.every((s) => known.includes(s))) {
      throw E.validation();
    }
    const limit = pageLimit(input.limit);
    return this.store.write(async (tx) => {
      await this.seller(tx, input.machineId, input);
      const sessions = await tx.streamDeliverySession.findMany({
        where: { machineId: input.machineId, orderId: { not: null }, status: { in: statuses } },
        orderBy: [{ createdAt: "asc" }, { id: "asc" }],
        take: limit,
      });
      const orders = await tx.streamOrder.findMany({ where: { id: { in: sessions.map((s) => s.orderId!) } } });
      const byId = new Map(orders.map((order) => [order.id, order]));
      return { items: sessions.map((session) => deliverySessionView(session, byId.get(session.orderId!))), nextCursor: null };
    });
  }

  async patch(sessionId: string, input: PatchSessionInput) {
    const { status, deliveryUrl, message } = input;
    if (status == null && deliveryUrl == null && message == null) throw E.validation();
    if (status != null && !(DELIVERY_SESSION_STATUSES as readonly string[]).includes(status)) throw E.validation();
    if (deliveryUrl != null && (deliveryUrl.length > 2048 || !DELIVERY_URL.test(deliveryUrl))) throw E.validation();
    if (message != null && (message.length === 0 || message.length > 1000)) throw E.validation();
    const now = new Date(this.clock.now());
    return this.store.write(async (tx) => {
      const agentId = await this.seller(tx, input.machineId, input);
      const session = await lockDeliverySession(tx, sessionId);
      if (session.machineId !== input.machineId || session.orderId === null) throw E.sessionNotFound();
      const order = await lockStreamOrder(tx, session.orderId);
      const to = (status ?? session.status) as DeliverySessionStatus;
      if (to === session.status && (to === "delivered" || to === "failed")) throw E.sessionStateInvalid();
      const url = deliveryUrl ?? session.deliveryUrl;
      if (to === "ready" && session.mode === "seller" && url === null) throw E.validation();
      let orderAfter = order;
      if (to === "delivered" && to !== session.status) {
        if (order.status !== "access_prepared") throw E.accessNotPrepared();
        orderAfter = await transitionStreamOrder(tx, order, "delivered", now, { deliveredAt: now });
      }
      const after = await transitionDeliverySession(tx, session, to, now, {
        ...(deliveryUrl != null ? { deliveryUrl } : {}),
        ...(message != null ? { message } : {}),
      });
      const actor = agentActor(agentId);
      await recordAuditEvent(tx, {
        kind: "stream.delivery-session.updated",
        machineId: session.machineId,
        actor,
        occurredAt: now,
        data: { sessionId, orderId: order.id, before: { status: session.status }, after: { status: after.status }, deliveryUrl: deliveryUrl ?? null },
      });
      if (orderAfter !== order) {
        await recordAuditEvent(tx, {
          kind: "stream.order.delivered",
          machineId: order.machineId,
          actor,
          occurredAt: now,
          data: { orderId: order.id, sessionId, before: { status: order.status }, after: { status: orderAfter.status } },
        });
      }
      return deliverySessionView(after, orderAfter);
    });
  }
}
