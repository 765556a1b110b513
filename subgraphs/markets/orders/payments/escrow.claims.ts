/**
 * The chain side of the escrow claims (settlement.service.ts; docs/markets-payments.md): a lock that failed gives its
 * claim back while nothing is locked, and release and refund are sent once whatever calls race or repeat them.
 */
import type { MarketsStore } from "../../common/store.js";
import { lockOrder, type PaymentRow } from "../order.repository.js";
import type { EscrowRail } from "./escrow.js";

/** A failed lock gives its claim back, exactly as the payment was, while nothing is locked on chain for the order. */
export async function giveBackLockClaim(store: MarketsStore, escrow: EscrowRail, orderId: string, before: PaymentRow): Promise<void> {
  try {
    if ((await escrow.read(orderId)).state !== "none") return;
  } catch {
    return; // the chain cannot be read: keep the claim for the next call to complete
  }
  await store.write(async (tx) => {
    await lockOrder(tx, orderId);
    await tx.marketPayment.updateMany({ where: { id: before.id, status: "lock_pending" }, data: { status: "intent_created", payer: before.payer, updatedAt: before.updatedAt } });
  });
}

/** The release or refund transactions this process is sending now, per escrow rail, by action and order. */
const sending = new WeakMap<EscrowRail, Map<string, Promise<string | null>>>();

/**
 * The escrow's release or refund, sent once: an escrow already in that state on chain (sent by an earlier call whose
 * record did not commit, or by another instance) answers null without a transaction, also when this call's own send
 * failed because the other one got there first. Calls in this process for the same order and action while one is
 * sending share it and answer its transaction: a second send would be refused by the escrow while the first is not
 * yet mined into the latest block, and the state read after that refusal could not yet tell it was done.
 */
export function escrowOnce(escrow: EscrowRail, orderId: string, action: "release" | "refund"): Promise<string | null> {
  let byKey = sending.get(escrow);
  if (!byKey) sending.set(escrow, (byKey = new Map()));
  const key = `${action}:${orderId}`;
  const running = byKey.get(key);
  if (running) return running;
  const started = sendOnce(escrow, orderId, action).finally(() => byKey.delete(key));
  byKey.set(key, started);
  return started;
}

async function sendOnce(escrow: EscrowRail, orderId: string, action: "release" | "refund"): Promise<string | null> {
  const done = action === "release" ? "released" : "refunded";
  if ((await escrow.read(orderId)).state === done) return null;
  try {
    return (await escrow[action](orderId)).txHash;
  } catch (error) {
    if ((await escrow.read(orderId).catch(() => null))?.state === done) return null;
    throw error;
  }
}
