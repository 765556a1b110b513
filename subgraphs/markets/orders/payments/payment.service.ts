/**
 * Payments of market orders (public notes 2.7): the ONE place that dispatches on the rail.
 *
 * `PaymentRails` maps a MarketPaymentRailType to its implementation. This file implements `not-required` only:
 * its intent records a `not_required` payment and moves the order to `ready`. A rail outside the documented list,
 * outside the service's `supportedRails`, or without an implementation here answers VALIDATION_ERROR and changes
 * nothing. The chain rails (wallet transfer proof, escrow lock/release/refund, x402) plug in as further entries of
 * `PaymentRails` (subgraphs/markets/orders/payments/), using `transitionOrder` / `transitionPayment` of
 * orders/order.repository.ts and writing their market.payment.* audit events in the same transaction.
 *
 * Intent is idempotent: a second intent for an order that has its payment answers that payment unchanged (a
 * different rail than the recorded one is VALIDATION_ERROR). Concurrent intents serialise on the order's row lock.
 */
import type { Clock } from "../../../shared/clock.js";
import type { MarketsSql } from "../../common/sql.js";
import type { ServiceView } from "../../work/catalogue.service.js";
import { MarketsErrors } from "../../common/errors.js";
import { RAIL_TYPES, type OrderStatus, type PaymentStatus, type RailType } from "../order.states.js";
import { assertOpen, type OrderRow, type PaymentRow } from "../order.repository.js";
import { insertIntent, paymentOfOrder } from "./payment.repository.js";
import type { PairingService } from "../pairing.service.js";
import type { MarketsStore } from "../../common/store.js";
import { jsonObject, newId, type JsonObject } from "../../common/support.js";
import { getAddress, isAddress } from "ethers";
import { PaymentErrors } from "./payment.errors.js";

/** What a rail needs to open a payment. */
export interface IntentContext {
  tx: MarketsSql;
  order: OrderRow;
  service: ServiceView;
  rail: RailType;
  /** The request's rail-specific members (payer, chain, token...), a JSON object of at most 16 KiB. */
  details: JsonObject;
  now: Date;
}

/** A rail's answer to an intent: the new payment row's fields and the order's next status. */
export interface IntentPlan {
  status: Extract<PaymentStatus, "intent_created" | "not_required">;
  orderStatus: Extract<OrderStatus, "ready" | "payment_pending">;
  required: boolean;
  amount?: string | null;
  currency?: string | null;
  chainId?: string | null;
  token?: string | null;
  payee?: string | null;
  payer?: string | null;
  amountRaw?: string | null;
  escrowRef?: string | null;
  details?: JsonObject;
}

export interface PaymentRail {
  intent(ctx: IntentContext): Promise<IntentPlan>;
}

export type PaymentRails = Partial<Record<RailType, PaymentRail>>;

export const NOT_REQUIRED_RAIL: PaymentRail = {
  async intent() {
    return { status: "not_required", orderStatus: "ready", required: false };
  },
};

export const DEFAULT_RAILS: PaymentRails = { "not-required": NOT_REQUIRED_RAIL };

export function paymentView(row: PaymentRow) {
  return {
    id: row.id,
    orderId: row.orderId,
    machineId: row.machineId,
    rail: row.rail,
    status: row.status,
    required: row.required,
    amount: row.amount,
    currency: row.currency,
    chainId: row.chainId,
    token: row.token,
    payee: row.payee,
    payer: row.payer,
    amountRaw: row.amountRaw,
    txHash: row.txHash,
    proofMode: row.proofMode,
    escrowRef: row.escrowRef,
    details: row.details as JsonObject,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

export type PaymentView = ReturnType<typeof paymentView>;

/** The rails a service accepts: its `payment.supportedRails`, else its default rail. */
export function supportedRails(service: { payment: { defaultRail: string; supportedRails?: string[] } }): string[] {
  return service.payment.supportedRails ?? [service.payment.defaultRail];
}

export class PaymentService {
  constructor(
    private readonly store: MarketsStore,
    private readonly pairings: PairingService,
    private readonly rails: PaymentRails,
    private readonly clock: Clock,
  ) {}

  async get(orderId: string): Promise<PaymentView> {
    const row = await this.store.read((prisma) => prisma.marketPayment.findUnique({ where: { orderId } }));
    if (!row) throw MarketsErrors.notFound();
    return paymentView(row);
  }

  /**
   * The intent in one SQL transaction: the order's lock, rule 1 and the pairing's lock and checks, then
   * the checks in their order, then one statement that writes the payment, moves the order and records the event,
   * or answers the payment the order already has. The checks before that statement weigh the order as if it had no
   * payment; when one refuses, the order's payment is read first, as an existing payment's answer comes before them.
   */
  async intent(token: string | null | undefined, orderId: string, rail: string | null | undefined, details: unknown): Promise<{ payment: PaymentView; orderStatus: string }> {
    const claims = await this.pairings.precheck(token);
    if (rail !== null && rail !== undefined && !(RAIL_TYPES as readonly string[]).includes(rail)) throw MarketsErrors.validation();
    const extra = details === null || details === undefined ? {} : jsonObject(details);
    const now = new Date(this.clock.now());
    return this.store.sqlWrite(async (sql) => {
      const { order, session } = await this.pairings.orderWrite(sql, orderId, claims);
      assertOpen(order);
      const service = order.serviceSnapshot as unknown as ServiceView;
      const chosen = (rail ?? (order.payment as { defaultRail: string }).defaultRail) as RailType;
      const existingAnswer = (existing: PaymentRow) => {
        if (existing.rail !== chosen) throw MarketsErrors.validation();
        return { payment: paymentView(existing), orderStatus: order.status };
      };
      let plan: IntentPlan;
      try {
        if (order.status !== "created") throw MarketsErrors.orderStateInvalid();
        if (!supportedRails(service).includes(chosen)) throw MarketsErrors.validation();
        const implementation = this.rails[chosen];
        if (!implementation) throw MarketsErrors.railNotSupported();
        // Who pays is the pairing's agent: an intent naming another payer is refused before anything is written.
        if (typeof extra.payer === "string" && isAddress(extra.payer) && getAddress(extra.payer) !== getAddress(session.pairing.agentAddress)) {
          throw PaymentErrors.payerMismatch();
        }
        plan = await implementation.intent({ tx: sql, order, service, rail: chosen, details: extra, now });
      } catch (error) {
        const existing = await paymentOfOrder(sql, orderId);
        if (existing) return existingAnswer(existing);
        throw error;
      }
      const paymentId = newId("pay");
      const written = await insertIntent(
        sql,
        {
          id: paymentId,
          orderId,
          machineId: order.machineId,
          rail: chosen,
          status: plan.status,
          required: plan.required,
          amount: plan.amount ?? (service.pricing.amount as string | null),
          currency: plan.currency ?? (service.pricing.currency as string | null),
          chainId: plan.chainId ?? null,
          token: plan.token ?? null,
          payee: plan.payee ?? null,
          payer: plan.payer ?? null,
          amountRaw: plan.amountRaw ?? null,
          escrowRef: plan.escrowRef ?? null,
          details: plan.details ?? {},
        },
        plan.orderStatus,
        {
          actor: session.actor,
          data: { orderId, paymentId, rail: chosen, paymentStatus: plan.status, before: { status: order.status }, after: { status: plan.orderStatus } },
        },
        now,
      );
      if (written.existing) return existingAnswer(written.payment);
      if (!written.moved) throw MarketsErrors.orderStateInvalid();
      return { payment: paymentView(written.payment), orderStatus: plan.orderStatus };
    });
  }
}
