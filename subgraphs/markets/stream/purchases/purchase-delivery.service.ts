/**
 * The purchase's delivery (public notes 3.4; docs/stream-marketplace.md "Purchase delivery"): the p2p session
 * descriptor with a short-lived connect handoff (GET /purchases/:purchaseId/delivery), the seller's check of a
 * handoff (POST /stream/delivery-sessions/handoff/verify), and the seller's buyer access for the bought chunks
 * (POST /purchases/:purchaseId/prepare-access).
 *
 * Handoff: each delivery read while the purchase is `paid` or `delivering` issues a fresh token `shof_` + 32 random
 * bytes (base64url); only its SHA-256 is stored (stream_delivery_session.handoff_hash) with its expiry (now +
 * HANDOFF_TTL_SECONDS), replacing the previous one. A token verifies, for the session's machine only, until it
 * expires (a resumed connection may present it again).
 */
import { createHash, randomBytes } from "node:crypto";
import { recordAuditEvent, type MarketsTx } from "../../common/audit.repository.js";
import { MarketsErrors } from "../../common/errors.js";
import { ACCESS_SCHEMA } from "../access.js";
import { KEY_WRAP } from "../manifest.js";
import { SEAL_OVERHEAD } from "../sealed-box.js";
import { authenticateStreamAgent, type AgentCredentials } from "../seller/agent.auth.js";
import { liveCapabilities } from "./delivery-capability.service.js";
import { PurchaseErrors } from "./purchase.errors.js";
import { lockPurchase, type PurchaseRow } from "./purchase.repository.js";
import type { StreamPurchaseService } from "./purchase.service.js";
import { newId, type JsonObject } from "../../common/support.js";

export const HANDOFF_TTL_SECONDS = 300;
const HANDOFF = /^shof_[A-Za-z0-9_-]{43}$/;
const DELIVERABLE = ["paid", "delivering", "delivered", "completed"];
const CONNECTABLE = ["paid", "delivering"];

const hashOf = (token: string) => new Uint8Array(createHash("sha256").update(token, "utf8").digest());

export class PurchaseDeliveryService {
  constructor(private readonly purchases: StreamPurchaseService) {}

  /** The purchase's (latest) delivery session. */
  private session(tx: MarketsTx, purchaseId: string) {
    return tx.streamDeliverySession.findFirst({ where: { purchaseId }, orderBy: [{ createdAt: "desc" }, { id: "desc" }] });
  }

  /** GET /purchases/:purchaseId/delivery (un-enveloped): nothing before paid. */
  async delivery(token: string | null | undefined, purchaseId: string) {
    if (!token) throw MarketsErrors.agentAuthRequired();
    const now = this.purchases.now();
    return this.purchases.store.write(async (tx) => {
      const purchase = await lockPurchase(tx, purchaseId);
      const actor = await this.purchases.buyer(tx, token, purchase);
      if (!DELIVERABLE.includes(purchase.status)) throw PurchaseErrors.stateInvalid();
      const session = await this.session(tx, purchaseId);
      if (!session) throw PurchaseErrors.stateInvalid();
      const negotiated = purchase.delivery as JsonObject & { transportId: string; peer: JsonObject };
      const live = (await liveCapabilities(tx, purchase.machineId, now)).find((c) => c.transportId === negotiated.transportId);
      let handoff: { token: string; expiresAt: string } | null = null;
      if (CONNECTABLE.includes(purchase.status)) {
        const value = `shof_${randomBytes(32).toString("base64url")}`;
        const expiresAt = new Date(now.getTime() + HANDOFF_TTL_SECONDS * 1000);
        await tx.streamDeliverySession.update({ where: { id: session.id }, data: { handoffHash: hashOf(value), handoffExpiresAt: expiresAt, updatedAt: now } });
        await recordAuditEvent(tx, {
          kind: "stream.delivery-session.handoff-issued",
          machineId: purchase.machineId,
          actor,
          occurredAt: now,
          data: { purchaseId, sessionId: session.id, expiresAt: expiresAt.toISOString() },
        });
        handoff = { token: value, expiresAt: expiresAt.toISOString() };
      }
      const access = await this.access(tx, purchase);
      return {
        purchaseId,
        status: purchase.status,
        delivery: {
          sessionId: session.id,
          status: session.status,
          mode: negotiated.mode,
          transportId: negotiated.transportId,
          version: negotiated.version,
          protocols: negotiated.protocols,
          encoding: negotiated.encoding,
          features: negotiated.features,
          peer: live ? { machineId: purchase.machineId, addresses: live.params.addresses, peerId: live.params.peerId } : negotiated.peer,
          handoff,
          chunkIds: purchase.chunkIds,
        },
        access,
      };
    });
  }

  /** The buyer-access entries prepared for this purchase, bought chunks only, in purchase order. */
  private async access(tx: MarketsTx, purchase: PurchaseRow): Promise<JsonObject[]> {
    const rows = await tx.streamBuyerAccess.findMany({ where: { purchaseId: purchase.id, chunkId: { in: purchase.chunkIds }, publicKeyHex: purchase.buyerPublicKeyHex } });
    const byChunk = new Map(rows.map((r) => [r.chunkId, r.access as JsonObject]));
    return purchase.chunkIds.flatMap((id) => (byChunk.has(id) ? [byChunk.get(id)!] : []));
  }

  /** POST /stream/delivery-sessions/handoff/verify (the seller's delivery server, machine-agent auth). */
  async verifyHandoff(machineId: string, credentials: AgentCredentials, handoffToken: unknown) {
    const now = this.purchases.now();
    return this.purchases.store.write(async (tx) => {
      await authenticateStreamAgent(this.purchases.store, tx, machineId, credentials);
      if (typeof handoffToken !== "string" || !HANDOFF.test(handoffToken)) throw PurchaseErrors.handoffInvalid();
      const session = await tx.streamDeliverySession.findUnique({ where: { handoffHash: hashOf(handoffToken) } });
      if (!session || session.machineId !== machineId || !session.purchaseId) throw PurchaseErrors.handoffInvalid();
      if (!session.handoffExpiresAt || session.handoffExpiresAt.getTime() <= now.getTime()) throw PurchaseErrors.handoffExpired();
      const purchase = await lockPurchase(tx, session.purchaseId);
      if (!CONNECTABLE.includes(purchase.status)) throw PurchaseErrors.stateInvalid();
      return {
        purchaseId: purchase.id,
        sessionId: session.id,
        machineId,
        buyerId: purchase.buyerId,
        buyerPublicKeyHex: purchase.buyerPublicKeyHex,
        chunkIds: purchase.chunkIds,
        transportId: session.transportId,
        expiresAt: session.handoffExpiresAt.toISOString(),
        purchaseStatus: purchase.status,
      };
    });
  }

  /**
   * POST /purchases/:purchaseId/prepare-access (seller agent), after paid: `items` are exactly one
   * peaq.stream.buyer-access.v1 entry per bought chunk, each to the purchase's buyer (recipientId = buyerId) and key;
   * anything else is PURCHASE_ACCESS_MISMATCH and writes nothing. Again later: the entries are replaced.
   */
  async prepareAccess(purchaseId: string, credentials: AgentCredentials, items: unknown) {
    const now = this.purchases.now();
    return this.purchases.store.write(async (tx) => {
      const purchase = await lockPurchase(tx, purchaseId);
      const { agent } = await authenticateStreamAgent(this.purchases.store, tx, purchase.machineId, credentials);
      if (!CONNECTABLE.includes(purchase.status)) throw PurchaseErrors.stateInvalid();
      const entries = accessItems(items, purchase);
      for (const entry of entries) {
        const where = { chunkId_buyerId_publicKeyHex: { chunkId: entry.chunkId, buyerId: purchase.buyerId, publicKeyHex: purchase.buyerPublicKeyHex } };
        const data = { machineId: purchase.machineId, wrappedKeyHex: entry.buyer.wrappedKeyHex, purchaseId, orderId: null, access: entry as never };
        await tx.streamBuyerAccess.upsert({ where, create: { id: newId("sacc"), ...where.chunkId_buyerId_publicKeyHex, ...data, createdAt: now }, update: data });
      }
      const session = await this.session(tx, purchaseId);
      if (session && session.status === "requested") {
        await tx.streamDeliverySession.update({ where: { id: session.id }, data: { status: "ready", updatedAt: now } });
      }
      const actor = { type: "machine-agent" as const, id: agent.id };
      await recordAuditEvent(tx, {
        kind: "stream.purchase.access-prepared",
        machineId: purchase.machineId,
        actor,
        occurredAt: now,
        data: { purchaseId, sessionId: session?.id ?? null, chunkCount: entries.length, session: { before: session?.status ?? null, after: session ? (session.status === "requested" ? "ready" : session.status) : null } },
      });
      return { item: this.purchases.view(purchase), access: entries as unknown as JsonObject[], deliverySession: session ? { id: session.id, status: session.status === "requested" ? "ready" : session.status } : null };
    });
  }
}

interface AccessEntry {
  schemaVersion: string;
  chunkId: string;
  buyer: { recipientId: string; recipientType: "buyer"; algorithm: string; publicKeyHex: string; wrappedKeyHex: string };
}

function accessItems(items: unknown, purchase: PurchaseRow): AccessEntry[] {
  const mismatch = PurchaseErrors.accessMismatch;
  if (!Array.isArray(items) || items.length !== purchase.chunkIds.length) throw mismatch();
  const wrappedHex = new RegExp(`^[0-9a-f]{${2 * (32 + SEAL_OVERHEAD)}}$`);
  const seen = new Set<string>();
  const entries = items.map((item) => {
    const e = item as AccessEntry;
    const b = e?.buyer;
    const ok =
      typeof e === "object" && e !== null && e.schemaVersion === ACCESS_SCHEMA && typeof e.chunkId === "string" &&
      typeof b === "object" && b !== null && b.recipientType === "buyer" && b.algorithm === KEY_WRAP &&
      b.recipientId === purchase.buyerId && b.publicKeyHex === purchase.buyerPublicKeyHex &&
      typeof b.wrappedKeyHex === "string" && wrappedHex.test(b.wrappedKeyHex);
    if (!ok || !purchase.chunkIds.includes(e.chunkId) || seen.has(e.chunkId)) throw mismatch();
    seen.add(e.chunkId);
    return { schemaVersion: ACCESS_SCHEMA, chunkId: e.chunkId, buyer: { recipientId: b.recipientId, recipientType: "buyer" as const, algorithm: KEY_WRAP, publicKeyHex: b.publicKeyHex, wrappedKeyHex: b.wrappedKeyHex } };
  });
  return entries;
}
