/**
 * Stream orders, the order-based (older) flow of public notes 3.2 (docs/stream-marketplace.md):
 *
 * - `create`: `{ listingId, buyerId, buyerPublicKeyHex, chunkIds?, payerAddress? }` on an active listing of an active
 *   machine (global rule 1) -> `payment_pending`; the listing is read under a share lock, so a deactivation queues
 *   behind the creation (stream/seller/listing.lock.ts). The order binds its payer: `payerAddress`, else a `buyerId` that is
 *   an EVM address; with neither, STREAM_PAYER_REQUIRED (unless STREAM_PAYMENT_PROOF_REQUIRED=false, where such an
 *   order can be paid by a self-reported reference only). The key is exactly 32 bytes of hex (X25519), stored lowercase. `chunkIds`
 *   (optional) is a non-empty subset of the listing's chunks without duplicates, kept in the listing's order; the price
 *   is the listing's price, or `pricePerChunk` x count when the listing has one and a strict subset was chosen.
 * - `pay`: `{ paymentReference, proof? }` -> `paid`, and a `requested` delivery session the seller's agent polls.
 *   The transfer, named by `proof` or by a reference that is its transaction hash, is checked on chain
 *   (stream/orders/stream-order.payment.ts): it must come from the order's payer (PAYMENT_PAYER_MISMATCH), and the
 *   transfer is recorded as spent in the same transaction as the payment, so it pays nothing else on the platform
 *   (PAYMENT_TX_ALREADY_USED; orders/payments/spent.repository.ts). Any other reference is refused (STREAM_PAYMENT_PROOF_REQUIRED)
 *   unless STREAM_PAYMENT_PROOF_REQUIRED=false (development), where it is recorded as given, as in the beta (notes 3).
 *   An order unpaid STREAM_ORDER_PAYMENT_TTL_SECONDS after its creation is expired by this call (or by the lifecycle
 *   job) and refused with STREAM_ORDER_EXPIRED (stream/orders/stream-order.expiry.ts).
 * - reads: the order by ID (no credentials, as the notes), and the seller's view of a machine's orders (its agent).
 *
 * Every change writes its `stream.*` audit event in the same transaction.
 */
import { Prisma } from "../../../shared/db/index.js";
import type { Clock } from "../../../shared/clock.js";
import { recordAuditEvent, type AuditActor } from "../../common/audit.repository.js";
import type { PaymentChain } from "../../orders/payments/index.js";
import type { MarketsStore } from "../../common/store.js";
import { StreamOrderErrors as E } from "./stream-order.errors.js";
import { getAddress, isAddress, isHexString } from "ethers";
import { spendTransfer } from "../../orders/payments/spent.repository.js";
import { checkStreamPayment, priceRaw, proofInput, type CheckedPaymentProof, type PaymentProofInput } from "./stream-order.payment.js";
import { paymentDue, paymentDueAt } from "../../common/payment.expiry.js";
import { expireStreamOrder } from "./stream-order.expiry.js";
import { readListingForSale } from "../seller/listing.lock.js";
import { lockStreamOrder, STREAM_ORDER_ID, streamOrderView, transitionStreamOrder, type StreamOrderView } from "./stream-order.repository.js";
import { decodeCursor, newId, olderThan, pageLimit, pageOf } from "../../common/support.js";
import type { AgentCredentials, StreamAgentAuth } from "./stream-order.ports.js";

export interface CreateStreamOrder {
  listingId: string;
  buyerId: string;
  buyerPublicKeyHex: string;
  chunkIds?: string[] | null;
  payerAddress?: string | null;
}

export interface PayStreamOrder {
  paymentReference: string;
  proof?: unknown;
}

export const BUYER_ACTOR: AuditActor = { type: "platform", id: "api" };
const MAX_CHUNKS = 10_000;

/** A buyer ID: 1..200 characters, no control characters, no surrounding spaces. */
export function buyerIdOf(value: unknown): string {
  if (typeof value !== "string" || value.length === 0 || value.length > 200 || value.trim() !== value || /[\u0000-\u001f\u007f]/.test(value)) {
    throw E.validation();
  }
  return value;
}

/** `amount` (a non-negative decimal string) times `count`, as a decimal string without trailing zeros. */
export function multiplyDecimal(amount: string, count: number): string {
  const match = /^(\d{1,30})(?:\.(\d{1,18}))?$/.exec(amount);
  if (!match) throw E.validation();
  const fraction = match[2] ?? "";
  const product = (BigInt(match[1]! + fraction) * BigInt(count)).toString().padStart(fraction.length + 1, "0");
  const whole = product.slice(0, product.length - fraction.length);
  const rest = product.slice(product.length - fraction.length).replace(/0+$/, "");
  return rest.length > 0 ? `${whole}.${rest}` : whole;
}

export class StreamOrderService {
  constructor(
    private readonly store: MarketsStore,
    private readonly agents: StreamAgentAuth,
    private readonly chain: PaymentChain,
    private readonly options: { proofRequired: boolean; paymentTtlSeconds: number },
    private readonly clock: Clock,
  ) {}

  /** The payment deadline of an order created at `createdAt` (ISO 8601): createdAt + STREAM_ORDER_PAYMENT_TTL_SECONDS. */
  paymentDueAt(createdAt: string): string {
    return paymentDueAt(new Date(createdAt), this.options.paymentTtlSeconds).toISOString();
  }

  async create(input: CreateStreamOrder): Promise<StreamOrderView> {
    const buyerId = buyerIdOf(input.buyerId);
    if (typeof input.buyerPublicKeyHex !== "string" || !/^[0-9a-fA-F]{64}$/.test(input.buyerPublicKeyHex)) throw E.validation();
    const buyerPublicKeyHex = input.buyerPublicKeyHex.toLowerCase();
    if (typeof input.listingId !== "string" || !/^[A-Za-z0-9_-]{1,64}$/.test(input.listingId)) throw E.listingNotFound();
    const chosen = input.chunkIds ?? null;
    const named = input.payerAddress ?? null;
    if (named !== null && (typeof named !== "string" || !isAddress(named))) throw E.validation();
    const payerAddress = named !== null ? getAddress(named) : isAddress(buyerId) ? getAddress(buyerId) : null;
    if (chosen !== null && (chosen.length === 0 || chosen.length > MAX_CHUNKS || new Set(chosen).size !== chosen.length)) throw E.validation();
    const now = new Date(this.clock.now());
    return this.store.write(async (tx) => {
      const listing = await readListingForSale(this.store, tx, input.listingId);
      if (!listing) throw E.listingNotFound();
      await this.store.requireActiveMachine(tx, listing.machineId);
      if (listing.status !== "active") throw E.listingInactive();
      if (chosen !== null && chosen.some((id) => !listing.chunkIds.includes(id))) throw E.chunkNotInListing();
      // Without a payer no transfer can pay the order: refused before it is created, not after the buyer has paid.
      if (payerAddress === null && this.options.proofRequired) throw E.payerRequired();
      const chunkIds = chosen === null ? listing.chunkIds : listing.chunkIds.filter((id) => chosen.includes(id));
      const subset = chunkIds.length < listing.chunkIds.length;
      const priceAmount = subset && listing.pricePerChunk ? multiplyDecimal(listing.pricePerChunk, chunkIds.length) : listing.priceAmount;
      const order = await tx.streamOrder.create({
        data: {
          id: newId("sord"),
          listingId: listing.id,
          machineId: listing.machineId,
          buyerId,
          buyerPublicKeyHex,
          chunkIds,
          status: "payment_pending",
          priceAmount,
          priceCurrency: listing.priceCurrency,
          payerAddress,
          createdAt: now,
          updatedAt: now,
        },
      });
      await recordAuditEvent(tx, {
        kind: "stream.order.created",
        machineId: order.machineId,
        actor: BUYER_ACTOR,
        occurredAt: now,
        data: { orderId: order.id, listingId: listing.id, buyerId, payerAddress, chunkCount: chunkIds.length, price: { amount: priceAmount, currency: listing.priceCurrency }, after: { status: order.status } },
      });
      return streamOrderView(order);
    });
  }

  async get(orderId: string): Promise<StreamOrderView> {
    if (!STREAM_ORDER_ID.test(orderId)) throw E.orderNotFound();
    const row = await this.store.read((prisma) => prisma.streamOrder.findUnique({ where: { id: orderId } }));
    if (!row) throw E.orderNotFound();
    return streamOrderView(row);
  }

  /** The seller's view: the machine's orders, newest first (its machine agent; global rule 1). */
  async listForMachine(machineId: string, credentials: AgentCredentials, page: { limit?: number | null; cursor?: string | null }) {
    const limit = pageLimit(page.limit);
    const cursor = decodeCursor(page.cursor);
    const rows = await this.store.write(async (tx) => {
      // The agent first, then rule 1 (StreamAgentAuth checks both, in that order).
      await this.agents(tx, machineId, credentials);
      return tx.streamOrder.findMany({
        where: { machineId, ...olderThan("createdAt", cursor) },
        orderBy: [{ createdAt: "desc" }, { id: "desc" }],
        take: limit + 1,
      });
    });
    return pageOf(rows, limit, (row) => ({ at: row.createdAt, id: row.id }), streamOrderView);
  }

  /**
   * Without `proof`: a reference that is a 32-byte transaction hash is the proof of a transfer on the platform's chain.
   * Anything else pays only with STREAM_PAYMENT_PROOF_REQUIRED=false (development); otherwise it is refused before
   * anything is read or written (STREAM_PAYMENT_PROOF_REQUIRED), so the order stays `payment_pending`.
   */
  private referenceProof(reference: string): PaymentProofInput | null {
    if (isHexString(reference, 32)) return { chainId: String(this.chain.chainId), txHash: reference.toLowerCase() };
    if (this.options.proofRequired) throw E.proofRequired();
    return null;
  }

  async pay(orderId: string, input: PayStreamOrder): Promise<StreamOrderView> {
    const reference = input.paymentReference;
    if (typeof reference !== "string" || reference.trim().length === 0 || reference.length > 256) throw E.validation();
    const given = input.proof === undefined || input.proof === null ? null : proofInput(input.proof);
    const before = await this.get(orderId);
    if (before.status === "expired") throw E.orderExpired();
    if (before.status !== "payment_pending") throw E.orderStateInvalid();
    // Due: this call expires the order itself (committed) and refuses; the due time is judged once, here.
    if (this.clock.now() >= paymentDueAt(new Date(before.createdAt), this.options.paymentTtlSeconds).getTime()) {
      await this.expireIfDue(orderId);
      throw E.orderExpired();
    }
    const proof = given ?? this.referenceProof(reference);
    let checked: CheckedPaymentProof | null = null;
    if (proof !== null) {
      if (!before.payerAddress) throw E.payerRequired();
      const minimum = priceRaw(before.price.amount, before.price.currency);
      checked = await checkStreamPayment(this.chain, proof, minimum, before.payerAddress);
    }
    const now = new Date(this.clock.now());
    try {
      return await this.store.write(async (tx) => {
        const order = await lockStreamOrder(tx, orderId);
        await this.store.requireActiveMachine(tx, order.machineId);
        if (order.status === "expired") throw E.orderExpired();
        if (order.status !== "payment_pending") throw E.orderStateInvalid();
        if (checked) await spendTransfer(tx, checked, "stream_order", order.id, now);
        const after = await transitionStreamOrder(tx, order, "paid", now, {
          paymentReference: reference,
          paymentProof: checked ? (checked as unknown as Prisma.InputJsonObject) : Prisma.DbNull,
          paymentTxHash: checked?.txHash ?? null,
          paidAt: now,
        });
        const session = await tx.streamDeliverySession.create({
          data: { id: newId("sdel"), machineId: order.machineId, orderId: order.id, mode: "platform", status: "requested", createdAt: now, updatedAt: now },
        });
        await recordAuditEvent(tx, {
          kind: "stream.order.paid",
          machineId: order.machineId,
          actor: BUYER_ACTOR,
          occurredAt: now,
          data: { orderId, paymentReference: reference, txHash: checked?.txHash ?? null, before: { status: order.status }, after: { status: after.status } },
        });
        await recordAuditEvent(tx, {
          kind: "stream.delivery-session.requested",
          machineId: order.machineId,
          actor: BUYER_ACTOR,
          occurredAt: now,
          data: { sessionId: session.id, orderId, mode: session.mode, after: { status: session.status } },
        });
        return streamOrderView(after);
      });
    } catch (error) {
      // Two payments racing with one txHash: the unique index refuses the second.
      if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002") throw E.txAlreadyUsed();
      throw error;
    }
  }

  /** Lazy expiry: the order, locked, moves to `expired` with its event if it is still unpaid and due. */
  private async expireIfDue(orderId: string): Promise<void> {
    const now = new Date(this.clock.now());
    const ttl = this.options.paymentTtlSeconds;
    await this.store.write(async (tx) => {
      const order = await lockStreamOrder(tx, orderId);
      if (paymentDue(order, now, ttl)) {
        await expireStreamOrder(tx, order, now, ttl, "payment");
      }
    });
  }
}
