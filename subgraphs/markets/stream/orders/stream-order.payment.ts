/**
 * The on-chain proof of a stream order payment (`POST /stream/orders/:orderId/payment` with `proof: { chainId,
 * txHash }`), checked with the market payment checker's parts (payments/): the transaction's receipt, read through the
 * chain's payment RPC, must have status 1 and an ERC-20 `Transfer(from, payee, value)` log emitted by the rails'
 * stablecoin (TestStablecoin on the embedded chain; a PAYMENT_CHAINS chain's own stablecoin), to the configured payee
 * (PAYMENT_PAYEE_ADDRESS; a PAYMENT_CHAINS chain's own payee), with
 * `value >= price` in 6-decimal units, sent by the order's payer (bound when the order was created): a qualifying
 * transfer from anyone else is PAYMENT_PAYER_MISMATCH (403). The platform itself never pays: a transaction the escrow
 * operator or the faucet sent, or a transfer out of the escrow contract (an escrow release or refund), is no payment
 * (PAYMENT_TRANSFER_NOT_FOUND). Codes as the market payment proofs' (docs/markets-payments.md):
 * PAYMENT_RPC_REQUIRED, PAYMENT_RPC_ERROR, PAYMENT_NOT_MINED, PAYMENT_TX_FAILED, PAYMENT_TRANSFER_NOT_FOUND,
 * PAYMENT_RAIL_UNAVAILABLE (no stablecoin or payee configured). A listing priced in a currency that is not
 * USD-pegged cannot be proven (VALIDATION_ERROR).
 */
import { getAddress, isHexString, parseUnits, zeroPadValue } from "ethers";
import { PaymentErrors } from "../../orders/payments/payment.errors.js";
import type { PaymentChain } from "../../orders/payments/index.js";
import { assertConfirmed, sentByPlatform, TRANSFER_TOPIC, type RpcReceipt } from "../../orders/payments/transfer.check.js";
import { StreamOrderErrors } from "./stream-order.errors.js";

const STABLE_CURRENCIES = ["USD", "USDC", "USDT", "TUSD"];

export interface PaymentProofInput {
  chainId: string;
  txHash: string;
}

/** What is stored in `stream_order.payment_proof`. */
export interface CheckedPaymentProof {
  chainId: string;
  txHash: string;
  token: string;
  from: string;
  to: string;
  amountRaw: string;
  block: number;
  logIndex: number;
}

/** The proof's shape: a decimal chain ID (string or number) and a 32-byte transaction hash (normalised lowercase). */
export function proofInput(value: unknown): PaymentProofInput {
  if (value === null || typeof value !== "object" || Array.isArray(value)) throw StreamOrderErrors.validation();
  const { chainId, txHash } = value as Record<string, unknown>;
  const chain = typeof chainId === "number" && Number.isSafeInteger(chainId) ? String(chainId) : chainId;
  if (typeof chain !== "string" || !/^[1-9][0-9]{0,18}$/.test(chain)) throw StreamOrderErrors.validation();
  if (typeof txHash !== "string" || !isHexString(txHash, 32)) throw StreamOrderErrors.validation();
  return { chainId: chain, txHash: txHash.toLowerCase() };
}

/** The price in raw stablecoin units (6 decimals), or VALIDATION_ERROR. */
export function priceRaw(amount: string, currency: string): bigint {
  if (!STABLE_CURRENCIES.includes(currency.toUpperCase())) throw StreamOrderErrors.validation();
  try {
    return parseUnits(amount, 6);
  } catch {
    throw StreamOrderErrors.validation();
  }
}

export async function checkStreamPayment(chain: PaymentChain, proof: PaymentProofInput, minimumRaw: bigint, payer: string): Promise<CheckedPaymentProof> {
  // A PAYMENT_CHAINS chain has its own stablecoin and payee; the platform's chain (and a chain that only has a
  // PAYMENT_RPC_URLS entry) the platform's.
  const destination = chain.destination(proof.chainId);
  const token = (destination?.token ?? chain.tokenAddress).toLowerCase();
  const payee = destination?.payTo ?? chain.payee;
  const rpc = chain.rpcs.forChain(proof.chainId);
  const receipt = await rpc.send<RpcReceipt | null>("eth_getTransactionReceipt", [proof.txHash]);
  if (!receipt) throw PaymentErrors.notMined();
  await assertConfirmed(rpc, receipt, destination?.confirmations ?? 1);
  if (BigInt(receipt.status) !== 1n) throw PaymentErrors.txFailed();
  // The platform's own transactions (escrow release or refund, settlements) and transfers out of the escrow pay nothing.
  const own = chain.platformAddresses();
  if (sentByPlatform(receipt, own)) throw PaymentErrors.transferNotFound();
  const toTopic = zeroPadValue(getAddress(payee), 32).toLowerCase();
  const payerTopic = zeroPadValue(getAddress(payer), 32).toLowerCase();
  let otherSender = false;
  for (const log of receipt.logs) {
    if (typeof log.address !== "string" || log.address.toLowerCase() !== token) continue;
    if (log.topics.length !== 3 || log.topics[0]!.toLowerCase() !== TRANSFER_TOPIC || log.topics[2]!.toLowerCase() !== toTopic) continue;
    if (!isHexString(log.data, 32) || BigInt(log.data) < minimumRaw) continue;
    if (own.has(`0x${log.topics[1]!.slice(-40)}`.toLowerCase())) continue;
    if (log.topics[1]!.toLowerCase() !== payerTopic) {
      otherSender = true;
      continue;
    }
    return {
      chainId: proof.chainId,
      txHash: proof.txHash,
      token: getAddress(token),
      from: getAddress(`0x${log.topics[1]!.slice(-40)}`),
      to: payee,
      amountRaw: BigInt(log.data).toString(),
      block: Number(BigInt(receipt.blockNumber)),
      logIndex: Number(BigInt(log.logIndex)),
    };
  }
  throw otherSender ? PaymentErrors.payerMismatch() : PaymentErrors.transferNotFound();
}
