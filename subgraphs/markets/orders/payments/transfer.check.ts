/**
 * The EVM wallet rail's proof in `rpc` mode (public notes 2.7): the transaction's receipt must exist, have status 1
 * and carry an ERC-20 `Transfer(from, to, value)` log emitted by the named token, from the named sender to the named
 * recipient, of exactly the raw amount. Answers where the transfer is, or throws:
 *
 * | Case | Code (status) |
 * | --- | --- |
 * | no RPC for the chain | PAYMENT_RPC_REQUIRED (400, from rpc.ts) |
 * | the node fails, times out or is down | PAYMENT_RPC_ERROR (502) |
 * | no receipt (pending or unknown transaction) | PAYMENT_NOT_MINED (409) |
 * | mined, but in fewer blocks than the chain's `confirmations` (PAYMENT_CHAINS) | PAYMENT_NOT_MINED (409) |
 * | receipt status 0 (reverted) | PAYMENT_TX_FAILED (402) |
 * | mined, but no matching Transfer log | PAYMENT_TRANSFER_NOT_FOUND (400) |
 * | a transaction the platform sent (`platform`: escrow operations, settlements, faucet) | PAYMENT_TRANSFER_NOT_FOUND (400) |
 */
import { getAddress, id, isAddress, isHexString, zeroPadValue } from "ethers";
import { PaymentErrors } from "./payment.errors.js";
import type { PaymentRpc } from "./rpc.js";

/** keccak256("Transfer(address,address,uint256)"). */
export const TRANSFER_TOPIC = id("Transfer(address,address,uint256)");

export interface TransferClaim {
  txHash: string;
  /** ERC-20 contract address. */
  token: string;
  from: string;
  to: string;
  /** Raw token units (the token's smallest unit). */
  amountRaw: bigint;
}

export interface CheckedTransfer {
  txHash: string;
  blockNumber: number;
  logIndex: number;
}

/** The JSON-RPC receipt fields the checks read. */
export interface RpcReceipt {
  transactionHash: string;
  /** The transaction's sender. */
  from?: string;
  status: string;
  blockNumber: string;
  logs: { address: string; topics: string[]; data: string; logIndex: string }[];
}

/** Refuses malformed claims before any request (VALIDATION_ERROR). */
export function assertTransferClaim(claim: TransferClaim): void {
  const ok =
    isHexString(claim.txHash, 32) &&
    isAddress(claim.token) &&
    isAddress(claim.from) &&
    isAddress(claim.to) &&
    typeof claim.amountRaw === "bigint" &&
    claim.amountRaw > 0n;
  if (!ok) throw PaymentErrors.validation();
}

export async function checkErc20Transfer(rpc: PaymentRpc, claim: TransferClaim, platform?: ReadonlySet<string>, confirmations = 1): Promise<CheckedTransfer> {
  assertTransferClaim(claim);
  const receipt = await rpc.send<RpcReceipt | null>("eth_getTransactionReceipt", [claim.txHash.toLowerCase()]);
  if (!receipt) throw PaymentErrors.notMined();
  await assertConfirmed(rpc, receipt, confirmations);
  if (platform && sentByPlatform(receipt, platform)) throw PaymentErrors.transferNotFound();
  return matchTransfer(receipt, claim);
}

/**
 * PAYMENT_NOT_MINED (409) until `confirmations` blocks hold the receipt's transaction (its own block included): the
 * chain's head is read only when more than one is required. A retry after more blocks succeeds.
 */
export async function assertConfirmed(rpc: PaymentRpc, receipt: RpcReceipt, confirmations: number): Promise<void> {
  if (confirmations <= 1) return;
  const head = BigInt(await rpc.send<string>("eth_blockNumber", []));
  if (head - BigInt(receipt.blockNumber) + 1n < BigInt(confirmations)) throw PaymentErrors.notMined();
}

/** Whether the platform itself sent the transaction (its sender is one of `platform`, lowercase addresses). */
export function sentByPlatform(receipt: RpcReceipt, platform: ReadonlySet<string>): boolean {
  return typeof receipt.from === "string" && platform.has(receipt.from.toLowerCase());
}

/**
 * The receipt checks on a receipt already read (also used after our own settlement transactions). With
 * `senderMismatch`, a transfer that matches all but its sender is PAYMENT_PAYER_MISMATCH instead of
 * PAYMENT_TRANSFER_NOT_FOUND (a payment bound to its payer, proven by someone else's transfer).
 */
export function matchTransfer(receipt: RpcReceipt, claim: Omit<TransferClaim, "txHash">, options: { senderMismatch?: boolean } = {}): CheckedTransfer {
  if (BigInt(receipt.status) !== 1n) throw PaymentErrors.txFailed();
  // Lowercase hex compared as strings: no checksum hashing per log (the bench's proof checks per second).
  const token = getAddress(claim.token).toLowerCase();
  const fromTopic = zeroPadValue(getAddress(claim.from), 32).toLowerCase();
  const toTopic = zeroPadValue(getAddress(claim.to), 32).toLowerCase();
  let otherSender = false;
  for (const log of receipt.logs) {
    if (typeof log.address !== "string" || log.address.toLowerCase() !== token) continue;
    if (log.topics.length !== 3 || log.topics[0].toLowerCase() !== TRANSFER_TOPIC) continue;
    if (log.topics[2].toLowerCase() !== toTopic) continue;
    if (!isHexString(log.data, 32) || BigInt(log.data) !== claim.amountRaw) continue;
    if (log.topics[1].toLowerCase() !== fromTopic) {
      otherSender = true;
      continue;
    }
    return { txHash: receipt.transactionHash.toLowerCase(), blockNumber: Number(BigInt(receipt.blockNumber)), logIndex: Number(BigInt(log.logIndex)) };
  }
  throw otherSender && options.senderMismatch ? PaymentErrors.payerMismatch() : PaymentErrors.transferNotFound();
}
