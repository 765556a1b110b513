/**
 * `cli stream buy <listingId>` (buyer), order flow (notes 3.2):
 *   1. verify the listing (clients/typescript/src/stream/verify.ts): a refusal stops here, before any order or payment;
 *   2. POST /stream/orders with the buyer's X25519 key (gateway/cli/commands/stream/api.ts buyer file) and the payer's
 *      address as `payerAddress` (only that address's transfer pays the order);
 *   3. pay on the chain: the TestStablecoin transfer of the price to the platform's payee from the demo payment agent
 *      (demo.json, or STREAM_BUYER_PRIVATE_KEY), then POST /stream/orders/:orderId/payment with its proof;
 *   4. wait until the seller's agent has prepared access (`cli stream serve`), polling the delivery;
 *   5. download each chunk (bearer token, Range resume), check its hash, open its key, decrypt into the files.
 * `--flow purchase` runs the purchase flow instead (gateway/cli/commands/stream/buy-purchase.ts): delivery peer to peer from the seller.
 */
import { Wallet, parseUnits } from "ethers";
import path from "node:path";
import { readDemoFixture } from "../../../../subgraphs/shared/chain/demo-fixture.js";
import { loadConfig } from "../../../../subgraphs/shared/config.js";
import { ChunkFiles } from "../../../../subgraphs/markets/stream/p2p/index.js";
import { CliError, StepError, UsageError, parseOptions, printResult, progress } from "../../command.js";
import { sendTransfer } from "../market/pay.js";
import { StreamApi, apiBase, loadBuyer, type BuyerKey } from "./api.js";
import { decryptDataset, httpDownload } from "../../../../clients/typescript/src/stream/fetch.js";
import { progressBar } from "./progress.js";
import { verifyListing, type VerifiedListing } from "./verify.js";
import { buyByPurchase } from "./buy-purchase.js";

export const BUY_USAGE = `Usage: cli stream buy <listingId> --out <dir> [--buyer-id ID] [--buyer-key <file>] [--flow order|purchase]
                      [--wait 120] [--token <pairingToken>] [--transport libp2p|tcp] [--api http://127.0.0.1:<MARKETS_PORT>]
Verifies the listing, orders it, pays the stablecoin price on the chain (demo payment agent of demo.json, or
STREAM_BUYER_PRIVATE_KEY), waits for the seller to prepare access, downloads, checks and decrypts into <dir>.
--flow purchase: the purchase flow (pairing token in --token or MARKET_PAIRING_TOKEN), delivered peer to peer over
the transport preferred with --transport (default libp2p; tcp when the seller announces only that).`;

export interface BuyContext {
  api: StreamApi;
  verified: VerifiedListing;
  buyer: BuyerKey;
  outDir: string;
  waitMs: number;
  token?: string;
  /** The purchase flow's preferred delivery transport. */
  transport: "libp2p" | "tcp";
}

/** The wallet that pays an order: STREAM_BUYER_PRIVATE_KEY, else the first funded demo payment agent. */
export function payerWallet(): Wallet {
  const key = process.env.STREAM_BUYER_PRIVATE_KEY ?? readDemoFixture(loadConfig().dataDir)?.payments?.agents?.[0]?.privateKey;
  if (!key) throw new CliError("no paying key: set STREAM_BUYER_PRIVATE_KEY, or start the platform so demo.json names its payment agents");
  return new Wallet(key);
}

/**
 * The wallet of `address` (a purchase's payer, its pairing's agent) among the keys the CLI knows:
 * STREAM_BUYER_PRIVATE_KEY, MARKET_AGENT_PRIVATE_KEY, the demo market agent (`market pair`) and the demo payment agents.
 */
export function walletOf(address: string): Wallet {
  const demo = readDemoFixture(loadConfig().dataDir);
  const keys = [process.env.STREAM_BUYER_PRIVATE_KEY, process.env.MARKET_AGENT_PRIVATE_KEY, demo?.markets?.agent?.privateKey, ...(demo?.payments?.agents ?? []).map((a) => a.privateKey)];
  for (const key of keys) {
    if (!key) continue;
    const wallet = new Wallet(key);
    if (wallet.address.toLowerCase() === address.toLowerCase()) return wallet;
  }
  throw new CliError(`the purchase is paid by its pairing's agent ${address} only: set STREAM_BUYER_PRIVATE_KEY to that agent's key`);
}

/** Pays `amount` (decimal, 6-decimal stablecoin) to the platform's payee: the mined transaction hash. */
export async function payOnChain(amount: string, currency: string, payer: Wallet = payerWallet()): Promise<{ txHash: string; chainId: string }> {
  const demo = readDemoFixture(loadConfig().dataDir);
  const token = process.env.STREAM_PAYMENT_TOKEN ?? demo?.payments?.stablecoin.address;
  const payee = process.env.PAYMENT_PAYEE_ADDRESS ?? demo?.payments?.payee.address;
  if (!token || !payee) throw new CliError("no stablecoin or payee: start the platform so demo.json names them, or set STREAM_PAYMENT_TOKEN and PAYMENT_PAYEE_ADDRESS");
  if (!["USD", "USDC", "USDT", "TUSD"].includes(currency.toUpperCase())) throw new CliError(`the listing's price is in ${currency}; the CLI pays USD-pegged stablecoin prices only`);
  const raw = parseUnits(amount, 6);
  progress(`pay: ${amount} ${currency} = ${raw} raw units of ${token} to ${payee}`);
  const txHash = await sendTransfer(payer, token, payee, raw);
  return { txHash, chainId: String(process.env.CHAIN_ID ?? demo?.chainId ?? loadConfig().chain.chainId) };
}

/** Polls `read` while it answers one of the `waiting` codes (the seller has not prepared access yet). */
export async function waitFor<T>(read: () => Promise<T>, waiting: RegExp, waitMs: number, what: string): Promise<T> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    try {
      return await read();
    } catch (error) {
      if (!(error instanceof StepError) || !waiting.test(error.message) || Date.now() > deadline) {
        if (error instanceof StepError && waiting.test(error.message)) throw new CliError(`${what}: still not ready after ${waitMs / 1000} s (${error.message}); is \`cli stream serve\` running for the seller?`);
        throw error;
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

async function buyByOrder(c: BuyContext): Promise<void> {
  const { api, verified, buyer } = c;
  const payer = payerWallet();
  const body = { listingId: verified.listing.id, buyerId: buyer.buyerId, buyerPublicKeyHex: buyer.publicKeyHex, payerAddress: payer.address };
  const order = (await api.call("POST", "/stream/orders", body)).item;
  printResult({ step: "order", orderId: order.id, status: order.status, price: order.price, chunks: order.chunkIds.length, payerAddress: order.payerAddress });
  const { txHash, chainId } = await payOnChain(order.price.amount, order.price.currency, payer);
  printResult({ step: "transfer", txHash, chainId });
  const paid = (await api.call("POST", `/stream/orders/${order.id}/payment`, { paymentReference: txHash, proof: { chainId, txHash } })).item;
  printResult({ step: "pay", orderId: order.id, status: paid.status });
  progress("waiting for the seller to prepare access ...");
  const delivery = await waitFor(
    () => api.call("GET", `/stream/orders/${order.id}/delivery?buyerId=${encodeURIComponent(buyer.buyerId)}`),
    /STREAM_ACCESS_NOT_PREPARED|STREAM_DELIVERY_NOT_READY/,
    c.waitMs,
    `order ${order.id}`,
  );
  if (delivery.delivery?.mode !== "platform") throw new CliError(`delivery mode ${delivery.delivery?.mode}: the CLI downloads platform deliveries (or --flow purchase)`);
  const manifests = verified.manifests.filter((m) => delivery.chunkIds.includes(m.chunkId));
  const total = manifests.reduce((n, m) => n + m.encryptedSize, 0);
  const bar = progressBar("download", total);
  let done = 0;
  const files = new ChunkFiles(path.join(c.outDir, ".stream-chunks"));
  const kept = await httpDownload(api, delivery.delivery.token, delivery.delivery.chunks, manifests, files, (n) => bar((done += n)));
  printResult({ step: "download", orderId: order.id, chunks: kept.size, encryptedBytes: total });
  const written = await decryptDataset(manifests, kept, delivery.access, buyer, c.outDir);
  printResult({ step: "decrypt", orderId: order.id, files: written.files, bytes: written.bytes, outDir: c.outDir });
}

export async function buyCommand(args: string[]): Promise<void> {
  const [listingId, ...rest] = args;
  if (listingId === "--help" || listingId === "-h") return void process.stdout.write(`${BUY_USAGE}\n`);
  if (listingId === undefined || listingId.startsWith("--")) throw new UsageError(`missing <listingId>\n\n${BUY_USAGE}`);
  const o = parseOptions(
    rest,
    { out: { type: "string" }, "buyer-id": { type: "string" }, "buyer-key": { type: "string" }, flow: { type: "string" }, wait: { type: "string" }, token: { type: "string" }, transport: { type: "string" }, api: { type: "string" } },
    BUY_USAGE,
  );
  if (!o) return;
  if (!o.out) throw new UsageError(`missing --out\n\n${BUY_USAGE}`);
  const flow = o.flow ?? "order";
  if (flow !== "order" && flow !== "purchase") throw new UsageError(`--flow is order or purchase\n\n${BUY_USAGE}`);
  const waitMs = 1000 * Number(o.wait ?? 120);
  if (!Number.isFinite(waitMs) || waitMs < 0) throw new UsageError(`--wait is seconds\n\n${BUY_USAGE}`);
  const transport = o.transport ?? "libp2p";
  if (transport !== "libp2p" && transport !== "tcp") throw new UsageError(`--transport is libp2p or tcp\n\n${BUY_USAGE}`);
  const api = new StreamApi(apiBase(o.api));
  const verified = await verifyListing(api, listingId);
  printResult({ step: "verify", listingId, chunks: verified.manifests.length, verified: true });
  const buyer = await loadBuyer(o["buyer-key"], o["buyer-id"]);
  const context: BuyContext = { api, verified, buyer, outDir: path.resolve(o.out), waitMs, token: o.token ?? process.env.MARKET_PAIRING_TOKEN, transport };
  if (flow === "purchase") await buyByPurchase(context);
  else await buyByOrder(context);
}
