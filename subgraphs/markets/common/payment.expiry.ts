/**
 * Expiry of unpaid rows (docs/stream-marketplace.md "Expiry"), shared by stream orders (stream/orders/stream-order.expiry.ts)
 * and purchases (stream/purchases/purchase.expiry.ts). A row still `payment_pending` its TTL after its creation is due:
 * the payment call that finds it due expires it itself and answers the family's EXPIRED code (lazy expiry, so a refusal
 * never depends on the job's timing), and the lifecycle job (lifecycle/lifecycle.sweep.ts) expires the due rows nobody
 * calls. Either way the change and its audit event commit in one transaction, under the row's lock, once.
 *
 * The job leaves a row alone for SWEEP_GRACE_MS after it fell due: a payment call that started in time judges the due
 * time at its start and may still be checking its proof on chain; it records `paid` unless the job got there first.
 */
import { Prisma } from "../../shared/db/index.js";
import type { AuditActor, MarketsTx } from "./audit.repository.js";

/** Who expires a row: the platform's lifecycle (the job, or a payment call that found the row due). */
export const LIFECYCLE_ACTOR: AuditActor = { type: "system", id: "lifecycle" };
/** Rows one sweep transaction handles at most (the job runs batches until a short one). */
export const SWEEP_BATCH = 100;
/** How long after its due time the job waits before expiring a row (longer than any proof's chain work). */
export const SWEEP_GRACE_MS = 5 * 60_000;

/** How expiry reached a row: `payment` for lazy expiry by a payment call, `sweep` for the job. */
export type ExpiryVia = "payment" | "sweep";

/** When an unpaid row created at `createdAt` falls due. */
export const paymentDueAt = (createdAt: Date, ttlSeconds: number): Date => new Date(createdAt.getTime() + ttlSeconds * 1000);

/** Whether a row is unpaid and due at `now`. */
export const paymentDue = (row: { status: string; createdAt: Date }, now: Date, ttlSeconds: number): boolean =>
  row.status === "payment_pending" && now.getTime() >= paymentDueAt(row.createdAt, ttlSeconds).getTime();

/** What the sweep needs of one family: its table, how to read a row in the transaction, and its expiry step. */
export interface ExpiringTable<Row extends { status: string }> {
  /** The SQL table (a constant of the family, never input). */
  table: "stream_order" | "stream_purchase";
  find(tx: MarketsTx, id: string): Promise<Row>;
  expire(tx: MarketsTx, row: Row, now: Date, ttlSeconds: number, via: ExpiryVia): Promise<unknown>;
  /**
   * For a family whose expiry moves a daily spend total (docs/database.md "Daily spend totals"): the totals' key as
   * an ORDER BY list of the table's columns (a constant, never input). A batch is expired in that order, so two sweeps
   * on different replicas take the totals' row locks in one order and never wait for each other in a cycle.
   */
  spendOrder?: string;
}

/**
 * One batch of the job: locks up to SWEEP_BATCH rows due for at least SWEEP_GRACE_MS, oldest first, skipping rows
 * another replica's sweep or a payment call holds (SKIP LOCKED: they are theirs), re-reads each under its lock and
 * expires it in this transaction (in `spendOrder` when the family has one). Returns the count.
 */
export async function sweepExpired<Row extends { status: string }>(tx: MarketsTx, kind: ExpiringTable<Row>, now: Date, ttlSeconds: number): Promise<number> {
  const cutoff = new Date(now.getTime() - ttlSeconds * 1000 - SWEEP_GRACE_MS);
  const due = await tx.$queryRaw<Array<{ id: string }>>`
    SELECT id FROM (SELECT * FROM ${Prisma.raw(kind.table)} WHERE status = 'payment_pending' AND created_at <= ${cutoff}
      ORDER BY created_at, id LIMIT ${SWEEP_BATCH} FOR UPDATE SKIP LOCKED) due
    ORDER BY ${Prisma.raw(kind.spendOrder ? `${kind.spendOrder}, ` : "")}created_at, id`;
  let expired = 0;
  for (const { id } of due) {
    const row = await kind.find(tx, id);
    if (row.status !== "payment_pending") continue;
    await kind.expire(tx, row, now, ttlSeconds, "sweep");
    expired += 1;
  }
  return expired;
}
