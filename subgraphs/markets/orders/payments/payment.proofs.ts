/**
 * The checks behind a market payment proof (settlement.service.ts step 2), outside any database transaction: a wallet
 * transfer read from the chain the proof names (sender = the pairing's agent, the stablecoin to the payee, enough
 * confirmations, never a transaction the platform sent), or an x402 authorization that spends the agent's funds.
 * Each answers the spent transfer to record with the payment (spent.repository.ts) and the payment's new fields.
 */
import type { Clock } from "../../../shared/clock.js";
import { MarketsErrors } from "../../common/errors.js";
import type { JsonObject } from "../../common/support.js";
import type { PaymentRow } from "../order.repository.js";
import type { PaymentChain } from "./index.js";
import { PaymentErrors } from "./payment.errors.js";
import { checkErc20Transfer } from "./transfer.check.js";
import { parsePaymentPayload, verifyPayment, type PaymentPayload, type PaymentRequirements } from "./x402.js";
import { getAddress, isAddress, isHexString } from "ethers";

export class PaymentProofs {
  constructor(
    private readonly chain: PaymentChain,
    private readonly clock: Clock,
  ) {}

  /** A wallet transfer: `rpc` reads the receipt on the chain the proof names; `recorded` (development only) reads nothing. */
  async wallet(payment: PaymentRow, input: JsonObject, agent: string) {
    const mode = input.mode ?? "rpc";
    if (mode !== "rpc" && mode !== "recorded") throw MarketsErrors.validation();
    // `recorded` reads nothing from the chain: a made-up hash would pay. Development only (MARKET_PAYMENT_RECORDED_PROOFS).
    if (mode === "recorded" && !this.chain.recordedProofs) throw PaymentErrors.proofModeDisabled();
    const txHash = input.txHash;
    if (typeof txHash !== "string" || !isHexString(txHash, 32)) throw MarketsErrors.validation();
    // The transfer must come from the pairing's agent: a proof cannot claim a transfer someone else sent.
    const payer = payerOf(input.from, agent);
    if (payment.payer && getAddress(payment.payer) !== payer) throw MarketsErrors.validation();
    const chainId = input.chainId ?? payment.chainId;
    if (typeof chainId !== "string" || !/^\d{1,20}$/.test(chainId)) throw MarketsErrors.validation();
    const hash = txHash.toLowerCase();
    let checked: { logIndex?: number } = {};
    if (mode === "rpc") {
      // Checked on the chain the proof names: a PAYMENT_CHAINS chain with its own stablecoin and payee.
      const destination = chainId === payment.chainId ? null : this.chain.destination(chainId);
      const claim = { txHash: hash, token: destination?.token ?? payment.token!, from: payer, to: destination?.payTo ?? payment.payee!, amountRaw: BigInt(payment.amountRaw!) };
      const confirmations = this.chain.destination(chainId)?.confirmations ?? 1;
      checked = await checkErc20Transfer(this.chain.rpcs.forChain(chainId), claim, this.chain.platformAddresses(), confirmations);
    }
    return {
      spent: { chainId, txHash: hash, logIndex: checked.logIndex ?? -1 },
      txHash: hash,
      payer,
      proofMode: mode,
      chainId,
      // A proven EVM wallet transfer is a WDK-style USDT transfer record (notes 2.7).
      rail: "wdk-usdt-transfer",
      details: { ...(payment.details as JsonObject), proof: { mode, chainId, ...checked } } as never,
    };
  }

  /** An x402 authorization, verified now and settled at execute (settlement.service.ts settleBeforeRun). */
  async x402(payment: PaymentRow, input: JsonObject, agent: string) {
    const payload = parsePaymentPayload(input.paymentPayload ?? input.paymentSignature);
    const requirements = (payment.details as unknown as { paymentRequirements: PaymentRequirements }).paymentRequirements;
    // The authorization spends its `from`: that must be the pairing's agent, as for every other rail.
    if (!isAddress(payload.payload.authorization.from) || getAddress(payload.payload.authorization.from) !== agent) throw PaymentErrors.payerMismatch();
    const { payer } = await verifyPayment(this.x402Context(), payload, requirements);
    if (payment.payer && getAddress(payment.payer) !== payer) throw PaymentErrors.authorizationInvalid();
    // The transfer is made at execute (settleBeforeRun), which claims it in the spent transactions.
    return { spent: null, payer, proofMode: "x402", authorization: payload as never };
  }

  /** What the x402 checks and the settlement read: the platform chain, its clock and the operator that settles. */
  x402Context() {
    return { rpc: this.chain.home(), chainId: this.chain.chainId, now: Math.floor(this.clock.now() / 1000), sender: this.chain.operator() };
  }

  /** The same proof again (a retry after a lost answer): same transaction hash, or the same x402 nonce. */
  same(payment: PaymentRow, input: JsonObject): boolean {
    if (typeof input.txHash === "string") return payment.txHash === input.txHash.toLowerCase();
    try {
      const nonce = parsePaymentPayload(input.paymentPayload ?? input.paymentSignature).payload.authorization.nonce;
      return (payment.authorization as PaymentPayload | null)?.payload.authorization.nonce === nonce;
    } catch {
      return false;
    }
  }
}

export function addressOf(value: unknown): string {
  if (typeof value !== "string" || !isAddress(value)) throw MarketsErrors.validation();
  return getAddress(value);
}

/** The paying agent's address; a named payer (`payer`, `from`) must be that address (PAYMENT_PAYER_MISMATCH). */
export function payerOf(named: unknown, agent: string): string {
  if (named === undefined || named === null) return agent;
  if (addressOf(named) !== agent) throw PaymentErrors.payerMismatch();
  return agent;
}

export function authorizationOf(value: unknown): { validAfter: string; validBefore: string; signature: string } | undefined {
  if (value === undefined || value === null) return undefined;
  const a = value as Record<string, unknown>;
  const uint = (v: unknown) => typeof v === "string" && /^\d{1,20}$/.test(v);
  if (typeof a !== "object" || !uint(a.validAfter) || !uint(a.validBefore) || typeof a.signature !== "string" || !/^0x[0-9a-fA-F]{130}$/.test(a.signature)) {
    throw MarketsErrors.validation();
  }
  return { validAfter: a.validAfter as string, validBefore: a.validBefore as string, signature: a.signature };
}
