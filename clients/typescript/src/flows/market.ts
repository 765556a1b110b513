/**
 * A market order from search to delivery (docs/markets-orders.md, docs/markets-payments.md): search with the
 * machine's authority (or the agent's pairing), order the best quote with the pairing, pay on the rail asked for,
 * execute through the provider, confirm, release (wallet and escrow payments wait for it). The rails: `not-required` (the intent alone), `wallet` (the agent sends the
 * stablecoin transfer the intent names, then proves it by its hash), `onchain-escrow` (the agent approves the escrow,
 * which locks the amount), `x402` (the agent signs an EIP-3009 authorization; execute settles it).
 */
import { Contract, type Signer, type Wallet } from "ethers";
import { randomNonce, signAuthorization } from "../../../../subgraphs/markets/orders/payments/eip3009.js";
import type { PaymentRequirements } from "../../../../subgraphs/markets/orders/payments/x402.js";
import { ok, type MarketsClient } from "../clients.js";
import { FlowError } from "../errors.js";
import { paymentOverrides } from "./payer.js";
import { report, type OnProgress } from "./progress.js";

export type Rail = "not-required" | "wallet" | "onchain-escrow" | "x402";
const TOKEN_ABI = ["function transfer(address to, uint256 value) returns (bool)", "function approve(address spender, uint256 value) returns (bool)"];

/** The best quote for `skillKey` on the machine: `{ searchId, quote }`; NO_QUOTE when the catalogue has none. */
export async function searchQuote(searcher: MarketsClient, machineId: string, skillKey: string) {
  const result = (await ok(searcher.api.POST("/api/v1/market/search", { body: { machineId, skillKey } }))).item;
  const quote = result.quotes[0];
  if (!quote) throw new FlowError("NO_QUOTE", `no quote for ${skillKey} on ${machineId}`);
  return { searchId: result.searchId, quote };
}

export interface OrderRequest {
  machineId: string;
  skillKey: string;
  input?: Record<string, unknown>;
  rail?: Rail;
  /** The pairing's agent key, connected to the chain (the payer on every rail but not-required). */
  payer?: Signer;
  onProgress?: OnProgress;
}

/** Search (with `searcher`: machine session or pairing), order, pay, execute and confirm (with `agent`'s pairing). */
export async function buyService(searcher: MarketsClient, agent: MarketsClient, request: OrderRequest) {
  const { searchId, quote } = await searchQuote(searcher, request.machineId, request.skillKey);
  report(request.onProgress, "quote", { quoteId: quote.id, pricing: quote.pricing });
  const order = (await ok(agent.api.POST("/api/v1/market/orders", { body: { machineId: request.machineId, searchId, quoteId: quote.id, input: request.input ?? {} } }))).item;
  report(request.onProgress, "order", { orderId: order.id, status: order.status });
  await payOrder(agent, order.id, request.rail ?? "not-required", request.payer, request.onProgress);
  const executed = (await ok(agent.api.POST("/api/v1/market/orders/{orderId}/execute", { params: { path: { orderId: order.id } } }))).item;
  report(request.onProgress, "execute", { status: executed.order.status });
  // x402 confirms itself on delivery; the other rails wait for the buyer's confirmation.
  const confirmed =
    executed.order.status === "delivered"
      ? (await ok(agent.api.POST("/api/v1/market/orders/{orderId}/confirm", { params: { path: { orderId: order.id } } }))).item
      : executed.order;
  report(request.onProgress, "confirmed", { status: confirmed.status });
  // Wallet and escrow payments wait for the buyer's release after confirmation (escrow: `release` on chain).
  const current = (await ok(agent.api.GET("/api/v1/market/orders/{orderId}/payment", { params: { path: { orderId: order.id } } }))).item;
  const payment =
    current.status === "release_pending"
      ? (await ok(agent.api.POST("/api/v1/market/orders/{orderId}/payment/release", { params: { path: { orderId: order.id } } }))).item.payment
      : current;
  report(request.onProgress, "settled", { status: payment.status });
  return { order: confirmed, payment, outcome: executed.outcome };
}

/** Opens the order's payment on `rail` and completes it from the payer's key: the payment as the platform answers it. */
export async function payOrder(agent: MarketsClient, orderId: string, rail: Rail, payer?: Signer, onProgress?: OnProgress) {
  const path = { params: { path: { orderId } } };
  const payerAddress = payer ? await payer.getAddress() : undefined;
  const intent = (await ok(agent.api.POST("/api/v1/market/orders/{orderId}/payment-intent", { ...path, body: { rail, ...(payerAddress ? { payer: payerAddress } : {}) } }))).item;
  report(onProgress, "payment-intent", { rail, status: intent.payment.status, amountRaw: intent.payment.amountRaw });
  if (rail === "not-required") return intent;
  if (!payer) throw new FlowError("PAYER_REQUIRED", `the ${rail} rail needs the agent's key to pay`);
  const { token, payee, amountRaw } = intent.payment;
  const details = (intent.payment as { details?: Record<string, any> }).details ?? {};
  if (!token || !amountRaw) throw new FlowError("PAYMENT_INTENT_INCOMPLETE", `the ${rail} intent names no token or amount`);
  const stablecoin = new Contract(token, TOKEN_ABI, payer);
  if (rail === "wallet") {
    const sent = await stablecoin.transfer(payee, BigInt(amountRaw), await paymentOverrides(payer));
    const txHash = (await sent.wait()).hash as string;
    report(onProgress, "transfer", { txHash });
    return (await ok(agent.api.POST("/api/v1/market/orders/{orderId}/payment-proof", { ...path, body: { mode: "rpc", txHash, from: payerAddress } }))).item;
  }
  if (rail === "onchain-escrow") {
    await (await stablecoin.approve(details.escrow, BigInt(amountRaw), await paymentOverrides(payer))).wait();
    report(onProgress, "approved", { escrow: details.escrow });
    return (await ok(agent.api.POST("/api/v1/market/orders/{orderId}/payment/escrow-lock", { ...path, body: { payer: payerAddress } }))).item;
  }
  const requirements = details.paymentRequirements as PaymentRequirements;
  const now = Math.floor(Date.now() / 1000);
  const authorization = { from: payerAddress!, to: requirements.payTo, value: requirements.maxAmountRequired, validAfter: String(now - 60), validBefore: String(now + requirements.maxTimeoutSeconds), nonce: randomNonce() };
  const chainId = (await payer.provider!.getNetwork()).chainId;
  const domain = { name: requirements.extra.name, version: requirements.extra.version, chainId: Number(chainId), verifyingContract: requirements.asset };
  const signature = await signAuthorization(payer as Wallet, domain, authorization);
  const payload = { x402Version: 1, scheme: "exact", network: requirements.network, payload: { signature, authorization } };
  report(onProgress, "authorized", { nonce: authorization.nonce });
  return (await ok(agent.api.POST("/api/v1/market/orders/{orderId}/payment-proof", { ...path, body: { paymentSignature: Buffer.from(JSON.stringify(payload)).toString("base64") } }))).item;
}
