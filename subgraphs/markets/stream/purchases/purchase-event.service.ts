/**
 * Purchase events (POST /purchases/:purchaseId/events; public notes 3.4): `{ type, actor: { type, id }, data }`.
 * The buyer authenticates with its pairing token (actor `buyer`, id = the purchase's buyerId); the seller with its
 * machine-agent credentials (actor `seller`, id = its agent ID or the machine ID). Each type moves the purchase
 * along its lifecycle, or is refused with PURCHASE_STATE_INVALID and changes nothing:
 *
 * | type | actor | from | to |
 * | --- | --- | --- | --- |
 * | buyer.connected | buyer | paid (delivering: recorded, no move) | delivering |
 * | delivery.acknowledged | buyer | delivering, access prepared | delivered |
 * | purchase.completed | buyer | delivered | completed |
 * | delivery.failed | buyer, seller | delivering | failed |
 * | purchase.cancelled | buyer | delivery_reserving, payment_pending | cancelled |
 *
 * The delivery session follows: delivered -> `delivered`, failed -> `failed`.
 */
import { recordAuditEvent } from "../../common/audit.repository.js";
import { MarketsErrors } from "../../common/errors.js";
import { lockPurchase, transitionPurchase, type PurchaseStatus } from "./purchase.repository.js";
import { PurchaseErrors } from "./purchase.errors.js";
import type { StreamPurchaseService } from "./purchase.service.js";
import type { AgentCredentials } from "../seller/agent.auth.js";
import { jsonObject, newId, type JsonObject } from "../../common/support.js";

interface Rule {
  actors: readonly ("buyer" | "seller")[];
  from: readonly PurchaseStatus[];
  to: PurchaseStatus | null;
  /** Statuses where the event is recorded without a move. */
  stay?: readonly PurchaseStatus[];
}

export const PURCHASE_EVENT_RULES: Readonly<Record<string, Rule>> = {
  "buyer.connected": { actors: ["buyer"], from: ["paid"], to: "delivering", stay: ["delivering"] },
  "delivery.acknowledged": { actors: ["buyer"], from: ["delivering"], to: "delivered" },
  "purchase.completed": { actors: ["buyer"], from: ["delivered"], to: "completed" },
  "delivery.failed": { actors: ["buyer", "seller"], from: ["delivering"], to: "failed" },
  "purchase.cancelled": { actors: ["buyer"], from: ["delivery_reserving", "payment_pending"], to: "cancelled" },
};

const SESSION_AFTER: Partial<Record<PurchaseStatus, string>> = { delivered: "delivered", failed: "failed" };

export class PurchaseEventService {
  constructor(private readonly purchases: StreamPurchaseService) {}

  async record(token: string | null | undefined, agent: AgentCredentials, purchaseId: string, input: unknown) {
    const body = jsonObject(input ?? {});
    const { type, actor, data = {} } = body as { type?: unknown; actor?: { type?: unknown; id?: unknown }; data?: unknown };
    const rule = typeof type === "string" ? PURCHASE_EVENT_RULES[type] : undefined;
    if (!rule || typeof actor !== "object" || actor === null || typeof actor.id !== "string" || actor.id.length > 256) throw MarketsErrors.validation();
    if (actor.type !== "buyer" && actor.type !== "seller") throw MarketsErrors.validation();
    const details = jsonObject(data, 4096);
    const now = this.purchases.now();
    return this.purchases.store.write(async (tx) => {
      const purchase = await lockPurchase(tx, purchaseId);
      const party = await this.purchases.party(tx, actor.type === "buyer" ? token : null, actor.type === "seller" ? agent : {}, purchase);
      if (!rule.actors.includes(party.role)) throw MarketsErrors.validation();
      const ids = party.role === "buyer" ? [purchase.buyerId] : [party.actor.id, purchase.machineId];
      if (!ids.includes(actor.id as string)) throw MarketsErrors.validation();
      const negotiated = purchase.delivery as JsonObject | null;
      if (type === "buyer.connected" && details.transportId !== undefined && details.transportId !== negotiated?.transportId) throw MarketsErrors.validation();
      const status = purchase.status as PurchaseStatus;
      const stays = rule.stay?.includes(status) ?? false;
      if (!stays && !rule.from.includes(status)) throw PurchaseErrors.stateInvalid();
      const session = await tx.streamDeliverySession.findFirst({ where: { purchaseId }, orderBy: [{ createdAt: "desc" }, { id: "desc" }] });
      if (type === "delivery.acknowledged" && session?.status !== "ready") throw PurchaseErrors.stateInvalid();
      const event = await tx.streamPurchaseEvent.create({
        data: { id: newId("spev"), purchaseId, type: type as string, actor: { type: actor.type, id: actor.id } as never, data: details as never, createdAt: now },
      });
      let after = purchase;
      if (!stays && rule.to) {
        const patch = rule.to === "completed" ? { completedAt: now } : {};
        after = await transitionPurchase(tx, purchase, rule.to, party.actor, now, patch, { eventId: event.id, eventType: type as string });
        const sessionTo = SESSION_AFTER[rule.to];
        if (session && sessionTo && session.status !== sessionTo && session.status !== "delivered") {
          await tx.streamDeliverySession.update({ where: { id: session.id }, data: { status: sessionTo, updatedAt: now } });
        }
      } else {
        await recordAuditEvent(tx, {
          kind: "stream.purchase.event-recorded",
          machineId: purchase.machineId,
          actor: party.actor,
          occurredAt: now,
          data: { purchaseId, eventId: event.id, eventType: type as string, status },
        });
      }
      return {
        id: event.id,
        purchaseId,
        type: event.type,
        actor: event.actor as JsonObject,
        data: event.data as JsonObject,
        purchaseStatus: after.status,
        createdAt: event.createdAt.toISOString(),
      };
    });
  }
}
