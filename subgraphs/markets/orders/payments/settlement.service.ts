/**
 * The chain rails' payment transitions after the intent (orders/payments/payment.service.ts): proof, escrow lock, release, refund,
 * and the x402 settlement and auto-confirmation during execute (docs/markets-payments.md).
 *
 * Every call runs in three steps so that no database transaction waits on the chain (PGlite has one connection):
 * 1. a short transaction authenticates the pairing token (Authentication 3), locks the order and reads its payment;
 *    every refusal of the request happens here or in step 2, before anything is written;
 * 2. the chain work: a receipt check, an escrow transaction, an x402 verification or settlement;
 * 3. one transaction re-locks the order, re-checks that the payment is still in the status step 1 saw, and writes the
 *    payment's and order's transitions with their market.payment.* audit event.
 * A request that lost a race in step 3 finds the payment moved: the same proof or lock answers the payment as it is
 * (idempotent); anything else is ORDER_STATE_INVALID. The escrow itself is idempotent on chain (escrow.ts).
 * Refund, which races execute for a `ready` order, writes its claim in step 1 instead (payment refund_pending, order
 * cancelled) and completes a claim left behind from the chain (refund below; docs/markets-payments.md).
 */
import type { Clock } from "../../../shared/clock.js";
import { recordAuditEvent, type AuditKind, type MarketsTx } from "../../common/audit.repository.js";
import { MarketsErrors } from "../../common/errors.js";
import { assertOpen, lockOrder, transitionOrder, transitionPayment, type OrderRow, type PaymentRow } from "../order.repository.js";
import type { OrderService } from "../order.service.js";
import { paymentView, type PaymentView } from "./payment.service.js";
import type { PaymentChain } from "./index.js";
import { PaymentErrors } from "./payment.errors.js";
import { escrowOnce, giveBackLockClaim } from "./escrow.claims.js";
import { addressOf, authorizationOf, PaymentProofs, payerOf } from "./payment.proofs.js";
import { spendTransfer } from "./spent.repository.js";
import { findSettlement, settlePayment, type PaymentPayload, type PaymentRequirements } from "./x402.js";
import { jsonObject, type JsonObject } from "../../common/support.js";
import { getAddress } from "ethers";
import type { MarketsSql } from "../../common/sql.js";
import { paymentOfOrder } from "./payment.repository.js";

export interface PaymentResult {
  payment: PaymentView;
  orderStatus: string;
}

type Actor = Parameters<typeof recordAuditEvent>[1]["actor"];

const result = (payment: PaymentRow, order: OrderRow): PaymentResult => ({ payment: paymentView(payment), orderStatus: order.status });

export class PaymentSettlementService {
  constructor(
    private readonly orders: OrderService,
    private readonly chain: PaymentChain,
    private readonly clock: Clock,
  ) {
    this.proofs = new PaymentProofs(chain, clock);
  }

  private readonly proofs: PaymentProofs;

  /** POST /market/orders/:orderId/payment-proof: a wallet transfer (`rpc` or `recorded`) or an x402 authorization. */
  async proof(token: string | null | undefined, orderId: string, details: unknown): Promise<PaymentResult> {
    const input = details === null || details === undefined ? {} : jsonObject(details);
    const { order, payment, agent } = await this.snapshot(token, orderId);
    assertOpen(order);
    if (payment.rail !== "wallet" && payment.rail !== "wdk-usdt-transfer" && payment.rail !== "x402") throw MarketsErrors.validation();
    if (payment.status !== "intent_created") {
      if (payment.status === "held" && this.proofs.same(payment, input)) return result(payment, order);
      throw MarketsErrors.orderStateInvalid();
    }
    const { spent, ...patch } = payment.rail === "x402" ? await this.proofs.x402(payment, input, agent) : await this.proofs.wallet(payment, input, agent);
    return this.commit(token, orderId, "intent_created", async (tx, current, currentPayment, actor, now) => {
      let held: PaymentRow;
      try {
        // One transfer pays one thing: claimed in the spent transactions in the same transaction as the payment.
        if (spent) await spendTransfer(tx, spent, "market_payment", currentPayment.id, now);
        held = await transitionPayment(tx, currentPayment, "held", now, patch);
      } catch (error) {
        throw isUniqueViolation(error) ? PaymentErrors.txAlreadyUsed() : error;
      }
      const after = await transitionOrder(tx, current, "ready", now);
      await this.audit(tx, "market.payment.proof-recorded", current, held, actor, now, { proofMode: held.proofMode, txHash: held.txHash, before: { status: "intent_created" } });
      return result(held, after);
    }, (p) => this.proofs.same(p, input));
  }

  /**
   * POST .../payment/escrow-lock: the operator locks the payer's stablecoin in PaymentEscrow (idempotent).
   * Claim, then act on chain, then record: under the order's row lock the payment moves intent_created -> lock_pending
   * with its payer (so cancel, which needs intent_created, cannot run while the lock is sent); then the lock; then
   * lock_pending -> held and the order -> ready. When this call's lock fails and the escrow is still empty on chain,
   * its claim is given back exactly as it was (the refusal changes nothing); a claim left behind otherwise (a crash,
   * an unanswered send) is completed by the next call from the escrow's state (an escrow already locked with the same
   * terms is recorded without a second transaction).
   */
  async escrowLock(token: string | null | undefined, orderId: string, details: unknown): Promise<PaymentResult> {
    const input = details === null || details === undefined ? {} : jsonObject(details);
    type Claim = { done: PaymentResult } | { done?: undefined; payment: PaymentRow; claimed: false } | { done?: undefined; payment: PaymentRow; claimed: true; payer: string };
    const claim = await this.orders.agentWrite(token, orderId, async (tx, order, session): Promise<Claim> => {
      const payment = await tx.marketPayment.findUnique({ where: { orderId } });
      if (!payment) throw MarketsErrors.orderStateInvalid();
      assertOpen(order);
      if (payment.rail !== "onchain-escrow") throw MarketsErrors.validation();
      if (payment.status === "held") return { done: result(payment, order) };
      if (payment.status === "lock_pending") return { payment, claimed: false };
      if (payment.status !== "intent_created") throw MarketsErrors.orderStateInvalid();
      // The payer is the pairing's agent: the operator's lockFrom must never spend another address's allowance.
      const payer = payerOf(input.payer, getAddress(session.pairing.agentAddress));
      if (payment.payer && getAddress(payment.payer) !== payer) throw MarketsErrors.validation();
      authorizationOf(input.authorization);
      this.chain.escrow(); // PAYMENT_RAIL_UNAVAILABLE refuses before anything is claimed
      await transitionPayment(tx, payment, "lock_pending", new Date(this.clock.now()), { payer });
      return { payment, claimed: true, payer };
    });
    if (claim.done) return claim.done;
    const { payment } = claim;
    const payer = claim.claimed ? claim.payer : addressOf(payment.payer);
    if (!claim.claimed && input.payer !== undefined && input.payer !== null && addressOf(input.payer) !== payer) throw PaymentErrors.payerMismatch();
    const authorization = authorizationOf(input.authorization);
    let locked: Awaited<ReturnType<ReturnType<PaymentChain["escrow"]>["lock"]>>;
    try {
      locked = await this.chain.escrow().lock({ orderId, payer, payee: payment.payee!, amountRaw: BigInt(payment.amountRaw!), authorization });
    } catch (error) {
      if (claim.claimed) await giveBackLockClaim(this.orders.store, this.chain.escrow(), orderId, payment);
      throw error;
    }
    return this.commit(token, orderId, "lock_pending", async (tx, current, currentPayment, actor, now) => {
      if (locked.txHash) await spendTransfer(tx, { chainId: currentPayment.chainId!, txHash: locked.txHash, logIndex: -1 }, "market_payment", currentPayment.id, now);
      const held = await transitionPayment(tx, currentPayment, "held", now, {
        proofMode: "rpc",
        escrowRef: locked.escrow.orderKey,
        ...(locked.txHash ? { txHash: locked.txHash } : {}),
        details: { ...(currentPayment.details as JsonObject), escrowLock: { txHash: locked.txHash, state: locked.escrow.state } } as never,
      });
      const after = await transitionOrder(tx, current, "ready", now);
      await this.audit(tx, "market.payment.escrow-held", current, held, actor, now, { txHash: locked.txHash, before: { status: "intent_created" } });
      return result(held, after);
    }, (p) => p.status === "held");
  }

  /** POST .../payment/release: a confirmed order's payment (release_pending) goes to the payee; escrow releases on chain. */
  async release(token: string | null | undefined, orderId: string): Promise<PaymentResult> {
    const { payment } = await this.snapshot(token, orderId);
    if (payment.status !== "release_pending") throw MarketsErrors.orderStateInvalid();
    const txHash = payment.rail === "onchain-escrow" ? await escrowOnce(this.chain.escrow(), orderId, "release") : null;
    return this.commit(token, orderId, "release_pending", async (tx, current, currentPayment, actor, now) => {
      const released = await transitionPayment(tx, currentPayment, "released", now, {
        details: { ...(currentPayment.details as JsonObject), release: { txHash } } as never,
      });
      await this.audit(tx, "market.payment.released", current, released, actor, now, { txHash, before: { status: "release_pending" } });
      return result(released, current);
    }, (p) => p.status === "released");
  }

  /**
   * POST .../payment/refund: an escrowed payment goes back to the payer while the order has not delivered (ready:
   * the order is cancelled with it; failed). Frozen (disputed) payments are the arbiter's, not the agent's.
   * Claim, then act on chain, then record: under the order's row lock the payment moves held -> refund_pending and a
   * `ready` order to `cancelled` (so execute, which claims ready -> executing under the same lock, cannot run it);
   * then the escrow refund is sent; then refund_pending -> refunded. A payment left refund_pending (a crash or chain
   * failure after the claim) is completed by the next refund call from the escrow's state on chain.
   */
  async refund(token: string | null | undefined, orderId: string): Promise<PaymentResult> {
    await this.orders.agentWrite(token, orderId, async (tx, order) => {
      const payment = await tx.marketPayment.findUnique({ where: { orderId } });
      if (!payment) throw MarketsErrors.orderStateInvalid();
      if (payment.rail !== "onchain-escrow") throw MarketsErrors.validation();
      if (payment.status === "refund_pending") return;
      if (payment.status !== "held" || !["ready", "failed"].includes(order.status)) {
        throw order.status === "confirmed" || order.status === "cancelled" ? MarketsErrors.orderClosed() : MarketsErrors.orderStateInvalid();
      }
      this.chain.escrow(); // PAYMENT_RAIL_UNAVAILABLE refuses before anything is claimed
      const now = new Date(this.clock.now());
      await transitionPayment(tx, payment, "refund_pending", now);
      if (order.status === "ready") await transitionOrder(tx, order, "cancelled", now);
    });
    const txHash = await escrowOnce(this.chain.escrow(), orderId, "refund");
    return this.commit(token, orderId, "refund_pending", async (tx, current, currentPayment, actor, now) => {
      const refunded = await transitionPayment(tx, currentPayment, "refunded", now, {
        details: { ...(currentPayment.details as JsonObject), refund: { txHash } } as never,
      });
      await this.audit(tx, "market.payment.refunded", current, refunded, actor, now, { txHash, before: { status: "held" } });
      return result(refunded, current);
    }, (p) => p.status === "refunded");
  }

  /**
   * Execute, before the provider is called: an x402 order's committed authorization is settled on chain (once). The
   * claim is execute's own ready -> executing, so no second execute or refund can run alongside; a settlement already
   * mined for the authorization (the record of an earlier attempt did not commit) is recorded instead of re-sent.
   */
  async settleBeforeRun(orderId: string, actor: Actor, payment: PaymentRow | null): Promise<void> {
    if (!payment || payment.rail !== "x402" || payment.status !== "held" || payment.txHash) return;
    const requirements = (payment.details as unknown as { paymentRequirements: PaymentRequirements }).paymentRequirements;
    const payload = payment.authorization as unknown as PaymentPayload;
    // Settled on chain by an earlier execute whose record did not commit: record that transfer, send nothing.
    const settled = (await findSettlement(this.proofs.x402Context(), payload, requirements)) ?? (await settlePayment(this.proofs.x402Context(), payload, requirements));
    await this.orders.store.write(async (tx) => {
      const order = await lockOrder(tx, orderId);
      const now = new Date(this.clock.now());
      const current = await tx.marketPayment.findUniqueOrThrow({ where: { orderId } });
      await spendTransfer(tx, { chainId: current.chainId!, txHash: settled.txHash, logIndex: settled.logIndex }, "market_payment", current.id, now);
      const updated = await tx.marketPayment.update({
        where: { id: current.id },
        data: { txHash: settled.txHash, updatedAt: now, details: { ...(current.details as JsonObject), settlement: { ...settled } } as never },
      });
      await this.audit(tx, "market.payment.settlement-recorded", order, updated, actor, now, { txHash: settled.txHash, blockNumber: settled.blockNumber });
    });
  }

  /** Execute, delivered: an x402 order confirms itself and its settled payment is released (notes 2.7). */
  async autoConfirm(tx: MarketsSql, order: OrderRow, actor: Actor, now: Date): Promise<OrderRow> {
    const payment = await paymentOfOrder(tx, order.id);
    if (!payment || payment.rail !== "x402" || payment.status !== "held" || !payment.txHash) return order;
    const confirmed = await transitionOrder(tx, order, "confirmed", now);
    const released = await transitionPayment(tx, payment, "released", now);
    await recordAuditEvent(tx, {
      kind: "market.order.confirmed",
      machineId: order.machineId,
      actor,
      occurredAt: now,
      data: { orderId: order.id, autoConfirmed: true, rail: "x402", before: { status: order.status }, after: { status: confirmed.status }, paymentStatus: "released" },
    });
    await this.audit(tx, "market.payment.released", order, released, actor, now, { txHash: payment.txHash, autoConfirmed: true, before: { status: "held" } });
    return confirmed;
  }

  /** Step 1: authenticated, order locked briefly, its payment read (ORDER_STATE_INVALID without one). */
  private snapshot(token: string | null | undefined, orderId: string): Promise<{ order: OrderRow; payment: PaymentRow; agent: string }> {
    return this.orders.agentWrite(token, orderId, async (tx, order, session) => {
      const payment = await tx.marketPayment.findUnique({ where: { orderId } });
      if (!payment) throw MarketsErrors.orderStateInvalid();
      return { order, payment, agent: getAddress(session.pairing.agentAddress) };
    });
  }

  /** Step 3: re-locked; the payment must still be `from` (else: answered as is when `settled(p)`, or a state error). */
  private commit(
    token: string | null | undefined,
    orderId: string,
    from: string,
    write: (tx: MarketsTx, order: OrderRow, payment: PaymentRow, actor: Actor, now: Date) => Promise<PaymentResult>,
    settled: (payment: PaymentRow) => boolean = () => false,
  ): Promise<PaymentResult> {
    return this.orders.agentWrite(token, orderId, async (tx, order, session) => {
      const payment = await tx.marketPayment.findUniqueOrThrow({ where: { orderId } });
      if (payment.status !== from) {
        if (settled(payment)) return result(payment, order);
        throw MarketsErrors.orderStateInvalid();
      }
      return write(tx, order, payment, session.actor, new Date(this.clock.now()));
    });
  }

  private audit(tx: MarketsSql, kind: AuditKind, order: OrderRow, payment: PaymentRow, actor: Actor, now: Date, data: Record<string, unknown>) {
    return recordAuditEvent(tx, {
      kind,
      machineId: order.machineId,
      actor,
      occurredAt: now,
      data: { orderId: order.id, paymentId: payment.id, rail: payment.rail, ...data, after: { status: payment.status } },
    });
  }
}

function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: string; message?: string; cause?: { code?: string } };
  return e?.code === "P2002" || e?.cause?.code === "23505" || /unique constraint/i.test(e?.message ?? "");
}
