/**
 * Market payment rows in SQL, for the payment intent's transaction (payment.service.ts): the order's payment, and
 * the intent's whole write in one statement. Both run in either kind of transaction (common/sql.ts); the caller
 * holds the order's row lock, so no other intent of the order runs between the statement's read and its write.
 */
import type { AuditActor } from "../../common/audit.repository.js";
import { camelRow, statementOf, type MarketsSql } from "../../common/sql.js";
import type { PaymentRow } from "../order.repository.js";
import { orderSourcesOf, type OrderStatus } from "../order.states.js";

const PAYMENT_OF_ORDER = `SELECT * FROM market_payment WHERE order_id = $1`;

/** The order's payment, or null. */
export async function paymentOfOrder(tx: MarketsSql, orderId: string): Promise<PaymentRow | null> {
  const [row] = await statementOf(tx)<Record<string, unknown>>(PAYMENT_OF_ORDER, [orderId]);
  return row ? camelRow<PaymentRow>(row) : null;
}

/** A new payment's columns (the times are the statement's `now`). */
export type NewPayment = Pick<
  PaymentRow,
  "id" | "orderId" | "machineId" | "rail" | "status" | "required" | "amount" | "currency" | "chainId" | "token" | "payee" | "payer" | "amountRaw" | "escrowRef"
> & { details: unknown };

/**
 * The intent's write, unless the order already has a payment: the payment row, the order's move to `orderStatus`
 * (only from a status the table allows: orders/order.states.ts) and the market.payment.intent-created event, all
 * or nothing. When the order has a payment the statement writes nothing and answers it (`existing`).
 */
const INSERT_INTENT = `WITH existing AS (SELECT * FROM market_payment WHERE order_id = $2),
  p AS (
    INSERT INTO market_payment (id, order_id, machine_id, rail, status, required, amount, currency, chain_id, token, payee, payer, amount_raw,
      escrow_ref, details, created_at, updated_at)
    SELECT $1::text, $2::text, $3::text, $4::text, $5::text, $6::boolean, $7::text, $8::text, $9::text, $10::text, $11::text, $12::text, $13::text,
      $14::text, $15::jsonb, $16::timestamptz, $16::timestamptz
    WHERE NOT EXISTS (SELECT 1 FROM existing)
    RETURNING *),
  o AS (
    UPDATE market_order SET status = $17::text, updated_at = $16::timestamptz
    WHERE id = $2::text AND status = ANY($18::text[]) AND EXISTS (SELECT 1 FROM p)
    RETURNING id),
  a AS (
    INSERT INTO market_audit_event (kind, machine_id, actor_type, actor_id, occurred_at, data)
    SELECT 'market.payment.intent-created', $3::text, $19::text, $20::text, $16::timestamptz, $21::jsonb FROM p, o)
  SELECT false AS existing, (SELECT count(*) FROM o)::int AS moved, p.* FROM p
  UNION ALL
  SELECT true, 0, e.* FROM existing e`;

export type IntentWrite = { existing: true; payment: PaymentRow } | { existing: false; payment: PaymentRow; moved: boolean };

export async function insertIntent(
  tx: MarketsSql,
  payment: NewPayment,
  orderStatus: OrderStatus,
  event: { actor: AuditActor; data: unknown },
  now: Date,
): Promise<IntentWrite> {
  const p = payment;
  const [row] = await statementOf(tx)<Record<string, unknown>>(INSERT_INTENT, [
    p.id,
    p.orderId,
    p.machineId,
    p.rail,
    p.status,
    p.required,
    p.amount,
    p.currency,
    p.chainId,
    p.token,
    p.payee,
    p.payer,
    p.amountRaw,
    p.escrowRef,
    JSON.stringify(p.details),
    now,
    orderStatus,
    orderSourcesOf(orderStatus),
    event.actor.type,
    event.actor.id ?? null,
    JSON.stringify(event.data),
  ]);
  const { existing, moved, ...rest } = row!;
  const written = camelRow<PaymentRow>(rest);
  return existing ? { existing: true, payment: written } : { existing: false, payment: written, moved: moved === 1 };
}
