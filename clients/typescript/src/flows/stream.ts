/**
 * Buying a stream listing on the order flow (docs/stream-marketplace.md "Order flow"), with the buyer steps
 * (../stream/: verify.ts, fetch.ts; the CLI's `cli stream` uses them too) and the formats library behind them:
 *   1. verify the listing's manifests, signers and chain: a refusal stops here, before any order or payment;
 *   2. order it with the buyer's X25519 key;
 *   3. pay: the stablecoin transfer of the price to the platform's payee from `payer`, proven by its hash;
 *   4. wait until the seller's agent has prepared access;
 *   5. download each chunk (bearer delivery token, Range resume), each checked against its manifest's size and
 *      SHA-256 before it is kept; open the chunk keys; decrypt into the dataset's files under `outDir`.
 * `onProgress` gets each step, and the bytes downloaded of the total.
 */
import path from "node:path";
import { Contract, parseUnits, type Signer } from "ethers";
import nacl from "tweetnacl";
import { toHex } from "../../../../subgraphs/markets/stream/index.js";
import { ChunkFiles } from "../../../../subgraphs/markets/stream/p2p/chunk-files.js";
import { ok, type MarketsClient } from "../clients.js";
import { ApiError, FlowError, StepError } from "../errors.js";
import { paymentOverrides } from "./payer.js";
import { StreamApi, type BuyerKey } from "../stream/api.js";
import { decryptDataset, httpDownload } from "../stream/fetch.js";
import { verifyListing } from "../stream/verify.js";
import { report, type OnProgress } from "./progress.js";

export type StreamBuyer = BuyerKey;

/** A fresh buyer: an X25519 key pair and an ID (keep the secret key to open what is bought). */
export function newStreamBuyer(buyerId = `buyer-${toHex(nacl.randomBytes(6))}`): StreamBuyer {
  const { publicKey, secretKey } = nacl.box.keyPair();
  return { buyerId, secretKey, publicKey, publicKeyHex: toHex(publicKey) };
}

export interface StreamPurchaseRequest {
  listingId: string;
  buyer: StreamBuyer;
  outDir: string;
  /** Pays the price: a key connected to the platform's chain, holding the stablecoin. */
  payer: Signer;
  /** The stablecoin the platform accepts and its payee (PAYMENT_PAYEE_ADDRESS). */
  stablecoin: string;
  payee: string;
  /** How long to wait for the seller's agent to prepare access (default 120 s). */
  waitMs?: number;
  onProgress?: OnProgress;
}

/** The steps' refusals as FlowErrors naming the check's code (e.g. SIGNATURE_INVALID, CIPHERTEXT_HASH_MISMATCH). */
async function step<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (!(error instanceof StepError)) throw error;
    throw new FlowError(/\b([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)\b/.exec(error.message)?.[1] ?? "STREAM_REFUSED", error.message);
  }
}

export async function buyStream(markets: MarketsClient, request: StreamPurchaseRequest) {
  const { listingId, buyer, onProgress } = request;
  const api = new StreamApi(markets.baseUrl);
  const verified = await step(() => verifyListing(api, listingId));
  report(onProgress, "verified", { listingId, chunks: verified.manifests.length });

  // The order binds its payer: only a transfer from this address pays it (PAYMENT_PAYER_MISMATCH otherwise).
  const payerAddress = await request.payer.getAddress();
  const body = { listingId, buyerId: buyer.buyerId, buyerPublicKeyHex: buyer.publicKeyHex, payerAddress };
  const order = (await ok(markets.api.POST("/api/v1/stream/orders", { body }))).item;
  report(onProgress, "order", { orderId: order.id, price: order.price });
  if (!["USD", "USDC", "USDT", "TUSD"].includes(order.price.currency.toUpperCase())) {
    throw new FlowError("PRICE_CURRENCY_UNSUPPORTED", `the listing's price is in ${order.price.currency}; this flow pays USD-pegged stablecoin prices`);
  }
  const stablecoin = new Contract(request.stablecoin, ["function transfer(address to, uint256 value) returns (bool)"], request.payer);
  const txHash = (await (await stablecoin.transfer(request.payee, parseUnits(order.price.amount, 6), await paymentOverrides(request.payer))).wait()).hash as string;
  const chainId = String((await request.payer.provider!.getNetwork()).chainId);
  report(onProgress, "transfer", { txHash });
  const path_ = { params: { path: { orderId: order.id } } };
  const paid = (await ok(markets.api.POST("/api/v1/stream/orders/{orderId}/payment", { ...path_, body: { paymentReference: txHash, proof: { chainId, txHash } } }))).item;
  report(onProgress, "paid", { status: paid.status });

  const deadline = Date.now() + (request.waitMs ?? 120_000);
  let delivery: any;
  for (;;) {
    try {
      delivery = await ok(markets.api.GET("/api/v1/stream/orders/{orderId}/delivery", { params: { path: { orderId: order.id }, query: { buyerId: buyer.buyerId } } }));
      break;
    } catch (error) {
      const waiting = error instanceof ApiError && /STREAM_ACCESS_NOT_PREPARED|STREAM_DELIVERY_NOT_READY/.test(error.code);
      if (!waiting) throw error;
      if (Date.now() > deadline) throw new FlowError("STREAM_ACCESS_NOT_PREPARED", `order ${order.id}: the seller has not prepared access in time`);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
  if (delivery.delivery?.mode !== "platform") throw new FlowError("DELIVERY_MODE_UNSUPPORTED", `delivery mode ${delivery.delivery?.mode}: this flow downloads platform deliveries`);
  report(onProgress, "access", { chunks: delivery.chunkIds.length });

  const manifests = verified.manifests.filter((m) => delivery.chunkIds.includes(m.chunkId));
  const total = manifests.reduce((n, m) => n + m.encryptedSize, 0);
  let done = 0;
  const files = new ChunkFiles(path.join(request.outDir, ".stream-chunks"));
  const kept = await step(() =>
    httpDownload(api, delivery.delivery.token, delivery.delivery.chunks, manifests, files, (n) => onProgress?.({ step: "download", done: (done += n), total })),
  );
  const written = await step(() => decryptDataset(manifests, kept, delivery.access, buyer, request.outDir));
  report(onProgress, "decrypted", written);
  return { orderId: order.id, txHash, files: written.files, bytes: written.bytes, outDir: request.outDir };
}
