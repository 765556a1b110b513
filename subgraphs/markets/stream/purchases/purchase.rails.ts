/**
 * The purchase flow's payment rails (public notes 3.4; docs/stream-marketplace.md "Purchase payment"), on the market payment rails'
 * chain side (payments/): `transfer` (an ERC-20 transfer of the chain's stablecoin to its payee, on the platform's
 * chain or any PAYMENT_CHAINS chain, proven by its transaction hash and checked against that chain's receipt with
 * `matchTransfer`) and `x402` (v1 `exact` requirements on the platform's chain; the signed EIP-3009 authorization is
 * verified and settled by the operator key, as the market x402 rail does).
 *
 * The price is the purchase's amount in a USD-pegged currency as 6-decimal stablecoin units; another currency cannot
 * be paid on these rails (VALIDATION_ERROR). A rail whose chain parts are not configured answers
 * PAYMENT_RAIL_UNAVAILABLE (and is left out of GET /payment-rails).
 */
import { getAddress, isAddress, isHexString, parseUnits } from "ethers";
import type { PaymentChain } from "../../orders/payments/index.js";
import { PaymentErrors } from "../../orders/payments/payment.errors.js";
import { assertConfirmed, matchTransfer, sentByPlatform, type RpcReceipt } from "../../orders/payments/transfer.check.js";
import { buildRequirements, parsePaymentPayload, settlePayment, type PaymentRequirements } from "../../orders/payments/x402.js";
import { MarketsErrors } from "../../common/errors.js";
import { PurchaseErrors } from "./purchase.errors.js";
import type { PurchaseRow } from "./purchase.repository.js";
import type { JsonObject } from "../../common/support.js";

export const PURCHASE_RAILS = ["transfer", "x402"] as const;
export type PurchaseRail = (typeof PURCHASE_RAILS)[number];
const STABLE = ["USD", "USDC", "USDT", "TUSD"];
const DECIMALS = 6;

/** What a proof proved: recorded as the purchase's `payment` (paymentProof). */
export interface ProvenPayment {
  rail: PurchaseRail;
  transactionHash: string;
  payer: string;
  blockNumber: number;
  chainId: string;
  details: JsonObject;
}

export class PurchaseRails {
  constructor(
    private readonly chain: PaymentChain,
    private readonly resourceBase: string,
    private readonly nowSeconds: () => number,
  ) {}

  /** GET /payment-rails: the configured rails; `transfer` lists every chain a transfer may pay on. */
  async list(): Promise<JsonObject[]> {
    const destinations = this.chain.destinations();
    if (destinations.length === 0) return [];
    const home = destinations[0]!;
    const items: JsonObject[] = [
      {
        type: "transfer",
        chains: destinations.map((d) => ({ chain: d.chain, chainId: d.chainId, token: { address: d.token, decimals: DECIMALS, symbol: "USD" }, payTo: d.payTo, confirmations: d.confirmations })),
        token: { address: home.token, decimals: DECIMALS, symbol: "USD" },
        payTo: home.payTo,
        proof: "transactionHash",
      },
    ];
    if (home.chainId !== String(this.chain.chainId)) return items;
    const token = await this.chain.tokenDomain().catch(() => null);
    try {
      this.chain.operator();
      if (token) items.push({ type: "x402", x402Version: 1, scheme: "exact", network: home.chain, asset: home.token, payTo: home.payTo, extra: { name: token.name, version: token.version } });
    } catch {
      // no settlement key: no x402
    }
    return items;
  }

  private amountRaw(purchase: PurchaseRow): bigint {
    if (!STABLE.includes(purchase.currency.toUpperCase())) throw MarketsErrors.validation();
    try {
      const raw = parseUnits(purchase.amount, DECIMALS);
      if (raw > 0n) return raw;
    } catch {
      // fall through
    }
    throw MarketsErrors.validation();
  }

  /**
   * The intent of `rail` for the purchase: where and how much to pay. A `destination` given must match ours. The
   * payer is the purchase's, bound at creation (its pairing's agent); a `payer` naming another address is
   * PAYMENT_PAYER_MISMATCH.
   */
  async intent(purchase: PurchaseRow, rail: PurchaseRail, given: JsonObject, named: unknown): Promise<JsonObject> {
    const payer = boundPayer(purchase, named);
    const amountRaw = this.amountRaw(purchase);
    const base = { rail, amount: purchase.amount, currency: purchase.currency, amountRaw: amountRaw.toString(), payer };
    if (rail === "transfer") {
      const destinations = this.chain.destinations().map((d) => ({ ...d, decimals: DECIMALS }));
      if (destinations.length === 0) throw PaymentErrors.railUnavailable();
      const d = given.destination as JsonObject | undefined;
      if (d !== undefined && (typeof d !== "object" || d === null || Array.isArray(d))) throw MarketsErrors.validation();
      // A `destination` given picks the chain (by name or ID) and must match its token and payee.
      const fits = (c: (typeof destinations)[number]) =>
        d === undefined || ((d.chain === undefined || same(d.chain, c.chain) || same(d.chain, c.chainId)) && (d.token === undefined || same(d.token, c.token)) && (d.payTo === undefined || same(d.payTo, c.payTo)));
      const destination = destinations.find(fits);
      if (!destination) throw PurchaseErrors.railInvalid();
      return { ...base, destination, destinations };
    }
    const destination = this.chain.destinations()[0];
    if (!destination || destination.chainId !== String(this.chain.chainId)) throw PaymentErrors.railUnavailable();
    this.chain.operator();
    const paymentRequirements = buildRequirements({
      network: destination.chain,
      token: await this.chain.tokenDomain(),
      payTo: destination.payTo,
      amountRaw,
      resource: `${this.resourceBase}/purchases/${purchase.id}`,
      description: `stream purchase ${purchase.id}: ${purchase.chunkIds.length} chunk(s) of listing ${purchase.listingId}`,
      maxTimeoutSeconds: this.chain.x402MaxTimeoutSeconds,
    });
    return { ...base, x402Version: 1, paymentRequirements };
  }

  /**
   * Transfer proof: `{ transactionHash, chain?, token?, from? }` checked against the receipt: the Transfer must come
   * from the purchase's payer (`from`, if given, must name it; a matching transfer from anyone else is
   * PAYMENT_PAYER_MISMATCH), and a transaction the platform sent pays nothing (PAYMENT_TRANSFER_NOT_FOUND).
   */
  async transfer(purchase: PurchaseRow, intent: JsonObject, input: JsonObject): Promise<ProvenPayment> {
    const hash = input.transactionHash ?? input.txHash;
    if (typeof hash !== "string" || !isHexString(hash, 32)) throw MarketsErrors.validation();
    type Destination = { chain: string; chainId: string; token: string; payTo: string };
    const offered = (intent.destinations as unknown as Destination[] | undefined) ?? [intent.destination as unknown as Destination];
    // The proof names its chain (by name or ID; default: the intent's destination). A chain the intent did not offer,
    // or that is no longer configured, is PURCHASE_RAIL_INVALID; the proof is then checked on THAT chain only.
    const destination = input.chain === undefined ? (intent.destination as unknown as Destination) : offered.find((c) => same(input.chain, c.chain) || same(input.chain, c.chainId));
    if (!destination || !this.chain.destination(destination.chainId)) throw PurchaseErrors.railInvalid();
    const current = this.chain.destination(destination.chainId)!;
    if (!same(current.token, destination.token) || !same(current.payTo, destination.payTo)) throw PurchaseErrors.railInvalid();
    if (input.token !== undefined && !same(input.token, destination.token)) throw PurchaseErrors.railInvalid();
    const txHash = hash.toLowerCase();
    const from = boundPayer(purchase, input.from);
    const rpc = this.chain.rpcs.forChain(destination.chainId);
    const receipt = await rpc.send<RpcReceipt | null>("eth_getTransactionReceipt", [txHash]);
    if (!receipt) throw PaymentErrors.notMined();
    await assertConfirmed(rpc, receipt, current.confirmations);
    if (sentByPlatform(receipt, this.chain.platformAddresses())) throw PaymentErrors.transferNotFound();
    const claim = { token: destination.token, from, to: destination.payTo, amountRaw: BigInt(intent.amountRaw as string) };
    const checked = matchTransfer(receipt, claim, { senderMismatch: true });
    return { rail: "transfer", transactionHash: checked.txHash, payer: from, blockNumber: checked.blockNumber, chainId: destination.chainId, details: { logIndex: checked.logIndex } };
  }

  /** x402 proof: `{ paymentPayload | paymentSignature }` verified against the requirements, then settled. */
  async x402(purchase: PurchaseRow, intent: JsonObject, input: JsonObject): Promise<ProvenPayment> {
    const payload = parsePaymentPayload(input.paymentPayload ?? input.paymentSignature);
    const requirements = intent.paymentRequirements as unknown as PaymentRequirements;
    // The authorization spends its `from`: only the purchase's payer may be spent.
    boundPayer(purchase, payload.payload.authorization.from);
    const settled = await settlePayment(
      { rpc: this.chain.home(), chainId: this.chain.chainId, now: this.nowSeconds(), sender: this.chain.operator() },
      payload,
      requirements,
    );
    return {
      rail: "x402",
      transactionHash: settled.txHash,
      payer: settled.payer,
      blockNumber: settled.blockNumber,
      chainId: String(this.chain.chainId),
      details: { nonce: payload.payload.authorization.nonce, logIndex: settled.logIndex },
    };
  }
}

/** Case-insensitive equality of a given string with ours (chain names, IDs, addresses). */
function same(a: unknown, b: string): boolean {
  return (typeof a === "string" || typeof a === "number") && String(a).toLowerCase() === b.toLowerCase();
}

/** The purchase's payer (bound at creation); `named`, when given, must be that address (PAYMENT_PAYER_MISMATCH). */
function boundPayer(purchase: PurchaseRow, named: unknown): string {
  if (!purchase.payerAddress) throw PurchaseErrors.stateInvalid();
  const payer = getAddress(purchase.payerAddress);
  if (named === undefined || named === null) return payer;
  if (typeof named !== "string" || !isAddress(named)) throw MarketsErrors.validation();
  if (getAddress(named) !== payer) throw PaymentErrors.payerMismatch();
  return payer;
}
