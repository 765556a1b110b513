/**
 * The arbiter's resolution of a disputed market order (docs/markets-orders.md, "Resolving a dispute"). The arbiter is
 * the service operator: the caller shows one of OPERATOR_TOKENS (OPERATOR_AUTH_REQUIRED without it,
 * OPERATOR_AUTH_INVALID with another), checked before anything else. `release` ends the order `confirmed` and pays
 * the payee; `refund` ends it `cancelled` and returns the payment to the payer. Global rule 1 does not apply: a
 * deactivated machine must not keep escrowed funds locked.
 *
 * An escrowed payment (`onchain-escrow`, frozen by the dispute) is resolved on chain, claim first, as the refund route
 * does (payments/settlement.service.ts):
 * 1. under the order's row lock: the order disputed -> confirmed | cancelled with its `resolution`, the payment
 *    frozen -> release_pending | refund_pending, and the market.order.dispute-resolved audit event;
 * 2. the escrow's release or refund, sent once (payments/escrow.claims.ts escrowOnce);
 * 3. under the row lock again: release_pending -> released | refund_pending -> refunded with its audit event.
 * A call that finds the order already resolved with the same decision completes a claim left behind (a crash, a
 * failed send) from the escrow's state on chain and answers the order as it is; two concurrent calls send one
 * transaction. Another decision on a resolved order is ORDER_CLOSED.
 *
 * Rails that hold nothing on chain (a wallet transfer proven to the payee, x402 settled, not-required): the decision
 * is recorded. `release` moves a frozen payment to released (the payee keeps the transfer); `refund` cancels the
 * order and leaves the payment frozen with the decision in its details, since the platform cannot take back a
 * transfer that already reached the payee: returning it is between the parties.
 */
import type { Clock } from "../../shared/clock.js";
import type { BearerTokens } from "../../shared/bearer.js";
import { DomainError } from "../../shared/errors.js";
import { recordAuditEvent, type AuditActor, type MarketsTx } from "../common/audit.repository.js";
import { MarketsErrors } from "../common/errors.js";
import type { MarketsStore } from "../common/store.js";
import { text, type JsonObject } from "../common/support.js";
import { lockOrder, transitionOrder, transitionPayment, type OrderRow, type PaymentRow } from "./order.repository.js";
import { orderView, type OrderView } from "./order.service.js";
import { FINISHED_ORDER_STATUSES } from "./order.states.js";
import { escrowOnce } from "./payments/escrow.claims.js";
import type { PaymentChain } from "./payments/index.js";
import { paymentView, type PaymentView } from "./payments/payment.service.js";

export type DisputeDecision = "release" | "refund";

/** What the order stores as `resolution`. */
export interface DisputeResolution {
  decision: DisputeDecision;
  reason: string;
  resolvedAt: string;
  /** True when the escrow is released or refunded on chain; false when the decision is a record only. */
  onChain: boolean;
}

export interface ResolvedDispute {
  order: OrderView;
  payment: PaymentView | null;
}

export const OperatorErrors = {
  authRequired: () => new DomainError("OPERATOR_AUTH_REQUIRED", "The operator's credential is required."),
  authInvalid: () => new DomainError("OPERATOR_AUTH_INVALID", "The operator's credential is invalid."),
};

const ARBITER: AuditActor = { type: "platform", id: "operator" };
const PENDING: Record<DisputeDecision, "release_pending" | "refund_pending"> = { release: "release_pending", refund: "refund_pending" };
const DONE: Record<DisputeDecision, "released" | "refunded"> = { release: "released", refund: "refunded" };

export class DisputeService {
  constructor(
    private readonly store: MarketsStore,
    private readonly chain: PaymentChain,
    private readonly operators: BearerTokens,
    private readonly clock: Clock,
  ) {}

  /** The operator's credential (a token of OPERATOR_TOKENS), before anything else is looked at. */
  authorize(token: string | null | undefined): void {
    if (token === null || token === undefined || token.length === 0) throw OperatorErrors.authRequired();
    if (!this.operators.acceptsToken(token)) throw OperatorErrors.authInvalid();
  }

  async resolve(token: string | null | undefined, orderId: string, decision: string | null | undefined, reason: string | null | undefined): Promise<ResolvedDispute> {
    this.authorize(token);
    if (decision !== "release" && decision !== "refund") throw MarketsErrors.validation();
    const why = text(reason, 1000);
    // 1. the claim (or the order as an earlier call left it)
    const claimed = await this.store.write(async (tx) => {
      const order = await lockOrder(tx, orderId);
      const payment = await tx.marketPayment.findUnique({ where: { orderId } });
      if (order.status !== "disputed") {
        if ((order.resolution as DisputeResolution | null)?.decision === decision) return { order, payment };
        throw (FINISHED_ORDER_STATUSES as readonly string[]).includes(order.status) ? MarketsErrors.orderClosed() : MarketsErrors.orderStateInvalid();
      }
      return this.claim(tx, order, payment, decision, why);
    });
    const { payment } = claimed;
    if (!payment || payment.rail !== "onchain-escrow" || payment.status !== PENDING[decision]) return { order: orderView(claimed.order), payment: payment && paymentView(payment) };
    // 2. the chain
    const txHash = await escrowOnce(this.chain.escrow(), orderId, decision);
    // 3. the record
    return this.store.write(async (tx) => {
      const order = await lockOrder(tx, orderId);
      const current = await tx.marketPayment.findUniqueOrThrow({ where: { orderId } });
      if (current.status !== PENDING[decision]) return { order: orderView(order), payment: paymentView(current) };
      const now = new Date(this.clock.now());
      const done = await transitionPayment(tx, current, DONE[decision], now, {
        details: { ...(current.details as JsonObject), [decision]: { txHash, byArbiter: true } } as never,
      });
      await this.audit(tx, `market.payment.${DONE[decision]}`, order, now, { paymentId: done.id, rail: done.rail, txHash, byArbiter: true, before: { status: PENDING[decision] }, after: { status: done.status } });
      return { order: orderView(order), payment: paymentView(done) };
    });
  }

  /** Step 1 on a disputed order: its end state, the payment's claim (escrow) or record (other rails), the audit event. */
  private async claim(tx: MarketsTx, order: OrderRow, payment: PaymentRow | null, decision: DisputeDecision, reason: string) {
    const escrowed = payment?.rail === "onchain-escrow" && payment.status === "frozen";
    if (escrowed) this.chain.escrow(); // PAYMENT_RAIL_UNAVAILABLE refuses before anything is claimed
    const now = new Date(this.clock.now());
    const resolution: DisputeResolution = { decision, reason, resolvedAt: now.toISOString(), onChain: escrowed };
    const after = await transitionOrder(tx, order, decision === "release" ? "confirmed" : "cancelled", now, { resolution: resolution as never });
    let paid = payment;
    if (payment && payment.status === "frozen") {
      const details = { ...(payment.details as JsonObject), resolution } as never;
      if (escrowed) paid = await transitionPayment(tx, payment, PENDING[decision], now, { details });
      else if (decision === "release") paid = await transitionPayment(tx, payment, "released", now, { details });
      else paid = await tx.marketPayment.update({ where: { id: payment.id }, data: { details, updatedAt: now } });
    }
    await this.audit(tx, "market.order.dispute-resolved", order, now, {
      decision,
      reason,
      onChain: escrowed,
      before: { status: order.status },
      after: { status: after.status },
      paymentStatus: paid?.status ?? null,
    });
    if (paid && payment && !escrowed && paid.status === "released") {
      await this.audit(tx, "market.payment.released", order, now, { paymentId: paid.id, rail: paid.rail, txHash: paid.txHash, byArbiter: true, before: { status: "frozen" }, after: { status: "released" } });
    }
    return { order: after, payment: paid };
  }

  private audit(tx: MarketsTx, kind: `market.${string}`, order: OrderRow, now: Date, data: Record<string, unknown>) {
    return recordAuditEvent(tx, { kind, machineId: order.machineId, actor: ARBITER, occurredAt: now, data: { orderId: order.id, ...data } as never });
  }
}
