/**
 * Spent transactions (docs/markets-payments.md "Spent transactions"): one transfer pays one thing across the platform.
 * Every payment that rests on a chain transfer (a market payment's wallet proof, escrow lock or x402 settlement, a
 * stream order's proof, a stream purchase's transfer or x402 settlement) records the transfer's (chain, transaction,
 * Transfer log index) here in the SAME database transaction that records the payment. The table's primary key is the
 * reuse check: a second claim of the same transfer, in sequence or at the same moment, finds the row (or waits for
 * the first claim's transaction and then finds it) and is PAYMENT_TX_ALREADY_USED, and its payment is not written.
 *
 * Log index -1 stands for the whole transaction (recorded proofs, escrow locks, rows carried over by the migration):
 * it conflicts with every log of that transaction, and any log conflicts with it.
 */
import type { MarketsTx } from "../../common/audit.repository.js";
import { PaymentErrors } from "./payment.errors.js";

export type SpentKind = "market_payment" | "stream_order" | "stream_purchase";

export interface SpentTransfer {
  chainId: string;
  txHash: string;
  /** The Transfer log's index in the receipt; -1 for the whole transaction. */
  logIndex: number;
}

/** Records `transfer` as paying `paidId`, or PAYMENT_TX_ALREADY_USED when it (or its whole transaction) paid anything. */
export async function spendTransfer(tx: MarketsTx, transfer: SpentTransfer, kind: SpentKind, paidId: string, now: Date): Promise<void> {
  const hash = transfer.txHash.toLowerCase();
  const whole = await tx.spentTransaction.findFirst({
    where: { chainId: transfer.chainId, txHash: hash, ...(transfer.logIndex === -1 ? {} : { logIndex: -1 }) },
    select: { paidId: true },
  });
  if (whole && whole.paidId !== paidId) throw PaymentErrors.txAlreadyUsed();
  // ON CONFLICT DO NOTHING: a concurrent claim waits for the first one's transaction, then inserts nothing.
  const inserted = await tx.$executeRaw`
    INSERT INTO spent_transaction (chain_id, tx_hash, log_index, kind, paid_id, created_at)
    VALUES (${transfer.chainId}, ${hash}, ${transfer.logIndex}, ${kind}, ${paidId}, ${now})
    ON CONFLICT DO NOTHING`;
  if (inserted === 1) return;
  const existing = await tx.spentTransaction.findUnique({
    where: { chainId_txHash_logIndex: { chainId: transfer.chainId, txHash: hash, logIndex: transfer.logIndex } },
    select: { paidId: true },
  });
  if (existing?.paidId !== paidId) throw PaymentErrors.txAlreadyUsed();
}
