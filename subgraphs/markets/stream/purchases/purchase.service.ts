/**
 * Purchases (public notes 3.4; docs/stream-marketplace.md "Purchase flow"): create (negotiated against the seller's
 * live delivery capabilities), read (the buyer's pairing or the seller's agent), payment intent and payment proof.
 *
 * The buyer is the pairing behind `x-agent-pairing-token` (Authentication 3, re-verified on every call);
 * `buyer.id` is the pairing's agentDid (a `buyer.id` sent must be that DID or the agent's address). Only the pairing
 * that created a purchase may act on it as buyer (another pairing: NOT_FOUND). Create checks the pairing's delegation
 * policy and the buyer machine's policies like a market order (purchase.policy.ts).
 *
 * A proof runs in three steps (as orders/payments/settlement.service.ts): a short transaction authenticates and reads the
 * purchase and its intent; the chain work (receipt check, or x402 verify + settle) runs outside any transaction; one
 * transaction re-locks the purchase, finds it still payment_pending (a retry of the same proof after it was paid
 * answers the purchase as is) and writes paid + the requested delivery session with their audit events. The purchase
 * binds its payer when it is created (the pairing's agent address): only that address's transfer or authorization
 * pays it (PAYMENT_PAYER_MISMATCH). The transfer is recorded as spent in the same transaction as the payment, so it
 * pays nothing else on the platform (PAYMENT_TX_ALREADY_USED; orders/payments/spent.repository.ts). A purchase unpaid
 * STREAM_PURCHASE_PAYMENT_TTL_SECONDS after its creation is expired by the intent or proof call that finds it due (or
 * by the lifecycle job) and refused with PURCHASE_EXPIRED (stream/purchases/purchase.expiry.ts).
 */
import type { Clock } from "../../../shared/clock.js";
import { recordAuditEvent, type AuditActor, type MarketsTx } from "../../common/audit.repository.js";
import { MarketsErrors } from "../../common/errors.js";
import type { PairingService } from "../../orders/pairing.service.js";
import { PaymentErrors } from "../../orders/payments/payment.errors.js";
import type { MarketsStore } from "../../common/store.js";
import { authenticateStreamAgent, type AgentCredentials } from "../seller/agent.auth.js";
import { liveCapabilities } from "./delivery-capability.service.js";
import { NO_COMMON_TRANSPORT, PurchaseErrors } from "./purchase.errors.js";
import { checkPurchasePolicies } from "./purchase.policy.js";
import { buyerDeliveryOf, buyerKeyOf, negotiate, priceOf, selectionOf } from "./purchase.negotiate.js";
import { PURCHASE_RAILS, type PurchaseRail, type PurchaseRails } from "./purchase.rails.js";
import { readListingForSale } from "../seller/listing.lock.js";
import { expirePurchase, purchaseDue } from "./purchase.expiry.js";
import { lockPurchase, purchaseView, transitionPurchase, type PurchaseRow, type PurchaseView } from "./purchase.repository.js";
import { jsonObject, newId, type JsonObject } from "../../common/support.js";
import { spendTransfer } from "../../orders/payments/spent.repository.js";
import { getAddress } from "ethers";
import { paymentDueAt } from "../../common/payment.expiry.js";

/** A purchase as the API answers it, with its payment deadline (common/payment.expiry.ts). */
export type PurchaseWithDue = PurchaseView & { paymentDueAt: string };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

export class StreamPurchaseService {
  constructor(
    readonly store: MarketsStore,
    private readonly pairings: PairingService,
    private readonly rails: PurchaseRails,
    readonly clock: Clock,
    private readonly paymentTtlSeconds: number,
  ) {}

  now(): Date {
    return new Date(this.clock.now());
  }

  /** The purchase's view with `paymentDueAt`: createdAt + STREAM_PURCHASE_PAYMENT_TTL_SECONDS (GET selects it on REST). */
  view(row: PurchaseRow): PurchaseWithDue {
    return { ...purchaseView(row), paymentDueAt: paymentDueAt(row.createdAt, this.paymentTtlSeconds).toISOString() };
  }

  /** The buyer's pairing for `purchase` (NOT_FOUND for another pairing's purchase). */
  async buyer(tx: MarketsTx, token: string | null | undefined, purchase: PurchaseRow): Promise<AuditActor> {
    const session = await this.pairings.authenticate(tx, token, null);
    if (session.pairing.id !== purchase.agentPairingId) throw MarketsErrors.notFound();
    return session.actor;
  }

  /** Buyer (pairing token) or seller (machine-agent credentials) of the purchase. */
  async party(tx: MarketsTx, token: string | null | undefined, agent: AgentCredentials, purchase: PurchaseRow): Promise<{ role: "buyer" | "seller"; actor: AuditActor }> {
    if (token) return { role: "buyer", actor: await this.buyer(tx, token, purchase) };
    if (agent.agentId || agent.agentToken) {
      const { agent: row } = await authenticateStreamAgent(this.store, tx, purchase.machineId, agent);
      return { role: "seller", actor: { type: "machine-agent", id: row.id } };
    }
    throw MarketsErrors.agentAuthRequired();
  }

  /** POST /purchases. */
  async create(token: string | null | undefined, input: unknown): Promise<PurchaseWithDue> {
    await this.pairings.precheck(token);
    const body = jsonObject(input);
    const { resource, buyer, delivery } = body;
    if (!isObject(resource) || resource.type !== "stream.listing" || typeof resource.listingId !== "string" || resource.listingId.length > 64) {
      throw MarketsErrors.validation();
    }
    if (!isObject(buyer)) throw MarketsErrors.validation();
    const publicKeyHex = buyerKeyOf(buyer.publicKey);
    const wants = buyerDeliveryOf(buyer, delivery);
    const listingId = resource.listingId;
    const now = this.now();
    const row = await this.store.write(async (tx) => {
      const session = await this.pairings.authenticate(tx, token, null);
      const buyerId = session.pairing.agentDid ?? session.pairing.agentAddress;
      if (buyer.id !== undefined && buyer.id !== null) {
        const id = String(buyer.id).toLowerCase();
        if (id !== buyerId.toLowerCase() && id !== session.pairing.agentAddress.toLowerCase()) throw MarketsErrors.validation();
      }
      const listing = await readListingForSale(this.store, tx, listingId);
      if (!listing) throw MarketsErrors.notFound();
      if (listing.status !== "active") throw PurchaseErrors.listingInactive();
      await this.store.requireActiveMachine(tx, listing.machineId);
      const chunkIds = selectionOf(listing.chunkIds, resource.selection);
      await checkPurchasePolicies(tx, session, listing, priceOf(listing, chunkIds.length), now);
      const created = await tx.streamPurchase.create({
        data: {
          id: newId("spur"),
          listingId,
          machineId: listing.machineId,
          agentPairingId: session.pairing.id,
          buyerId,
          buyerPublicKeyHex: publicKeyHex,
          buyerCapabilities: wants.capabilities as never,
          payerAddress: getAddress(session.pairing.agentAddress),
          chunkIds,
          status: "delivery_reserving",
          amount: priceOf(listing, chunkIds.length),
          currency: listing.priceCurrency,
          createdAt: now,
          updatedAt: now,
        },
      });
      await recordAuditEvent(tx, {
        kind: "stream.purchase.created",
        machineId: listing.machineId,
        actor: session.actor,
        occurredAt: now,
        data: { purchaseId: created.id, listingId, chunkCount: chunkIds.length, after: { status: "delivery_reserving" } },
      });
      const chosen = negotiate(await liveCapabilities(tx, listing.machineId, now), wants);
      if (!chosen) {
        const failure = { code: NO_COMMON_TRANSPORT, message: "The seller's live delivery capabilities and the buyer's have no transport in common." };
        return transitionPurchase(tx, created, "failed", session.actor, now, { delivery: { failure } }, { failure: failure.code });
      }
      const negotiated = {
        mode: "p2p",
        transportId: chosen.transportId,
        version: chosen.version,
        protocols: chosen.protocols,
        encoding: chosen.encoding,
        features: chosen.features,
        peer: { machineId: listing.machineId, addresses: chosen.params.addresses, peerId: chosen.params.peerId },
      };
      return transitionPurchase(tx, created, "payment_pending", session.actor, now, { delivery: negotiated }, { transportId: chosen.transportId });
    });
    return this.view(row);
  }

  /** GET /purchases/:purchaseId: the buyer's pairing or the seller's agent. */
  async get(token: string | null | undefined, agent: AgentCredentials, purchaseId: string): Promise<PurchaseWithDue> {
    if (token) await this.pairings.precheck(token);
    return this.store.write(async (tx) => {
      const purchase = await lockPurchase(tx, purchaseId);
      await this.party(tx, token, agent, purchase);
      return this.view(purchase);
    });
  }

  /** POST /purchases/:purchaseId/payment-intent: `{ rail: "transfer" | { type, destination? }, payer? }`. */
  async intent(token: string | null | undefined, purchaseId: string, input: unknown): Promise<PurchaseWithDue> {
    await this.pairings.precheck(token);
    const body = jsonObject(input ?? {});
    const railSpec = typeof body.rail === "string" ? { type: body.rail } : body.rail;
    if (!isObject(railSpec) || !(PURCHASE_RAILS as readonly unknown[]).includes(railSpec.type)) throw MarketsErrors.validation();
    const rail = railSpec.type as PurchaseRail;
    const first = await this.store.write(async (tx) => {
      const purchase = await lockPurchase(tx, purchaseId);
      await this.buyer(tx, token, purchase);
      if (await this.expiredNow(tx, purchase)) return null;
      if (purchase.status !== "payment_pending") throw PurchaseErrors.stateInvalid();
      return purchase;
    });
    if (!first) throw PurchaseErrors.expired();
    const intent = await this.rails.intent(first, rail, railSpec as JsonObject, body.payer);
    const row = await this.store.write(async (tx) => {
      const purchase = await lockPurchase(tx, purchaseId);
      const actor = await this.buyer(tx, token, purchase);
      if (purchase.status !== "payment_pending") throw purchase.status === "expired" ? PurchaseErrors.expired() : PurchaseErrors.stateInvalid();
      const now = this.now();
      const updated = await tx.streamPurchase.update({ where: { id: purchaseId }, data: { rail, paymentIntent: intent as never, updatedAt: now } });
      await recordAuditEvent(tx, {
        kind: "stream.purchase.payment-intent-created",
        machineId: purchase.machineId,
        actor,
        occurredAt: now,
        data: { purchaseId, rail, amountRaw: intent.amountRaw as string, replaced: purchase.rail },
      });
      return updated;
    });
    return this.view(row);
  }

  /** POST /purchases/:purchaseId/payment-proof: transfer `{ rail, transactionHash, chain?, token? }` or x402. */
  async proof(token: string | null | undefined, purchaseId: string, input: unknown): Promise<PurchaseWithDue> {
    await this.pairings.precheck(token);
    const body = jsonObject(input ?? {});
    const snapshot = await this.store.write(async (tx) => {
      const purchase = await lockPurchase(tx, purchaseId);
      await this.buyer(tx, token, purchase);
      // The due time is judged here, once: a proof that starts in time is recorded after its chain work.
      if (await this.expiredNow(tx, purchase)) return null;
      return purchase;
    });
    if (!snapshot) throw PurchaseErrors.expired();
    const railName = isObject(body.rail) ? body.rail.type : body.rail ?? snapshot.rail;
    const hash = typeof (body.transactionHash ?? body.txHash) === "string" ? String(body.transactionHash ?? body.txHash).toLowerCase() : null;
    if (snapshot.status !== "payment_pending") {
      if (snapshot.paymentTxHash && hash === snapshot.paymentTxHash) return this.view(snapshot);
      throw PurchaseErrors.stateInvalid();
    }
    if (!snapshot.paymentIntent || !snapshot.rail) throw PurchaseErrors.stateInvalid();
    if (railName !== snapshot.rail) throw PurchaseErrors.railInvalid();
    const intent = snapshot.paymentIntent as JsonObject;
    const proven = snapshot.rail === "x402" ? await this.rails.x402(snapshot, intent, body) : await this.rails.transfer(snapshot, intent, body);
    const row = await this.store.write(async (tx) => {
      const purchase = await lockPurchase(tx, purchaseId);
      const actor = await this.buyer(tx, token, purchase);
      if (purchase.status !== "payment_pending") {
        if (purchase.paymentTxHash === proven.transactionHash) return purchase;
        throw purchase.status === "expired" ? PurchaseErrors.expired() : PurchaseErrors.stateInvalid();
      }
      const now = this.now();
      const spent = { chainId: proven.chainId, txHash: proven.transactionHash, logIndex: proven.details.logIndex as number };
      await spendTransfer(tx, spent, "stream_purchase", purchase.id, now);
      const paid = await transitionPurchase(
        tx,
        purchase,
        "paid",
        actor,
        now,
        { paymentProof: proven as never, paymentTxHash: proven.transactionHash, paidAt: now },
        { rail: proven.rail, transactionHash: proven.transactionHash },
      );
      await this.requestDelivery(tx, paid, actor, now);
      return paid;
    });
    return this.view(row);
  }

  /**
   * A payment call on `purchase` (locked): PURCHASE_EXPIRED when it expired before; true when it was unpaid and due, so
   * this call expired it (the caller commits and then answers PURCHASE_EXPIRED); false otherwise.
   */
  private async expiredNow(tx: MarketsTx, purchase: PurchaseRow): Promise<boolean> {
    if (purchase.status === "expired") throw PurchaseErrors.expired();
    const now = this.now();
    if (!purchaseDue(purchase, now, this.paymentTtlSeconds)) return false;
    await expirePurchase(tx, purchase, now, this.paymentTtlSeconds, "payment");
    return true;
  }

  /** Paid: the seller's delivery session for the negotiated transport, `requested`. */
  private async requestDelivery(tx: MarketsTx, purchase: PurchaseRow, actor: AuditActor, now: Date): Promise<void> {
    const delivery = purchase.delivery as { mode: string; transportId: string };
    const session = await tx.streamDeliverySession.create({
      data: { id: newId("sdel"), machineId: purchase.machineId, purchaseId: purchase.id, mode: delivery.mode, transportId: delivery.transportId, status: "requested", createdAt: now, updatedAt: now },
    });
    await recordAuditEvent(tx, {
      kind: "stream.delivery-session.requested",
      machineId: purchase.machineId,
      actor,
      occurredAt: now,
      data: { purchaseId: purchase.id, sessionId: session.id, transportId: delivery.transportId, after: { status: "requested" } },
    });
  }
}
