/**
 * The client's stream purchase (`buyStream`, order flow) against a platform with a real seller: the CLI publishes
 * a directory and its `stream serve` agent prepares access; the client verifies the listing, orders, pays the
 * stablecoin on the chain, downloads with the delivery token, checks each chunk and decrypts into files equal to the
 * originals, reporting progress. A tampered manifest is refused before any order or payment; tampered ciphertext
 * before anything is decrypted.
 */
import { mkdtemp, readdir, readFile, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { JsonRpcProvider, Wallet } from "ethers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buyStream, createMarketsClient, FlowError, newStreamBuyer, type FlowProgress } from "../../clients/typescript/src/index.js";
import { runCli } from "../support/cli.js";
import { createSeller, PLATFORM_START_TIMEOUT_MS, prismaOf, startMarketsPlatform, type MarketsPlatform } from "../stream/helpers.js";
import { sameFiles, startServe, writeDataset, writeSellerFile, type ServeProcess } from "../stream/cli/cli-helpers.js";

let p: MarketsPlatform;
let chain: JsonRpcProvider;
let work: string;
let sellerFile: string;
let serve: ServeProcess;

beforeAll(async () => {
  p = await startMarketsPlatform();
  chain = new JsonRpcProvider(p.platform.chain!.rpcUrl, p.demo.chainId, { staticNetwork: true });
  work = await mkdtemp(path.join(os.tmpdir(), "client-stream-"));
  sellerFile = path.join(work, "seller.json");
  await writeSellerFile(sellerFile, await createSeller(p, 0));
  serve = startServe(p, sellerFile);
  await serve.line((l) => l.step === "serve");
}, PLATFORM_START_TIMEOUT_MS);
afterAll(async () => {
  chain?.destroy();
  await serve?.stop();
  await p?.close();
});

async function publish(name: string, files: Record<string, number>, chunkSize = 4096) {
  const originals = await writeDataset(path.join(work, name), files);
  const run = await runCli(p, ["stream", "publish", path.join(work, name), "--seller", sellerFile, "--price", "0.25", "--chunk-size", String(chunkSize), "--api", p.markets]);
  expect(run.code, run.stderr).toBe(0);
  return { originals, listingId: JSON.parse(run.stdout.trim().split("\n")[0]!).listingId as string };
}

const purchase = (listingId: string, outDir: string, onProgress?: (progress: FlowProgress) => void) => ({
  listingId,
  buyer: newStreamBuyer(),
  outDir,
  payer: new Wallet(p.demo.payments!.agents[0]!.privateKey, chain),
  stablecoin: p.demo.payments!.stablecoin.address,
  payee: p.demo.payments!.payee.address,
  waitMs: 60_000,
  onProgress,
});

describe("buyStream", () => {
  it("verifies, orders, pays, downloads, checks and decrypts into the original files, with progress", async () => {
    const { originals, listingId } = await publish("dataset", { "scan-001.bin": 10_000, "nested/scan-002.bin": 4_096, "notes.txt": 17 });
    const progress: FlowProgress[] = [];
    const out = path.join(work, "bought");
    const result = await buyStream(createMarketsClient({ baseUrl: p.markets }), purchase(listingId, out, (s) => progress.push(s)));
    expect(result).toMatchObject({ files: 3, bytes: 14_113 });
    expect(await sameFiles(out, originals)).toBe(true);
    expect([...new Set(progress.map((s) => s.step))]).toEqual(["verified", "order", "transfer", "paid", "access", "download", "decrypted"]);
    const downloads = progress.filter((s) => s.step === "download");
    expect(downloads.at(-1)!.done).toBe(downloads.at(-1)!.total);
    const order = await prismaOf(p).streamOrder.findUniqueOrThrow({ where: { id: result.orderId } });
    expect([order.status, order.paymentTxHash]).toEqual(["delivered", result.txHash]);
  });

  it("a tampered manifest is refused before any order or payment", async () => {
    const { listingId } = await publish("dataset-tampered-manifest", { "one.bin": 2_000 }, 1024);
    const listing = await prismaOf(p).streamListing.findUniqueOrThrow({ where: { id: listingId } });
    const row = await prismaOf(p).streamChunk.findUniqueOrThrow({ where: { chunkId: listing.chunkIds[1]! } });
    const altered = structuredClone(row.manifest as any);
    altered.encryptedDataHash = `sha256:${"0".repeat(64)}`;
    await prismaOf(p).streamChunk.update({ where: { chunkId: row.chunkId }, data: { manifest: altered } });
    const orders = await prismaOf(p).streamOrder.count();
    const balance = await chain.getBalance(p.demo.payments!.agents[0]!.address);
    const out = path.join(work, "refused-manifest");
    const refused = await buyStream(createMarketsClient({ baseUrl: p.markets }), purchase(listingId, out)).catch((e) => e);
    expect(refused).toBeInstanceOf(FlowError);
    expect(refused.code).toBe("CHUNK_ID_MISMATCH");
    expect(await prismaOf(p).streamOrder.count()).toBe(orders);
    expect(await chain.getBalance(p.demo.payments!.agents[0]!.address)).toBe(balance);
    expect(await readdir(out).catch(() => [])).toEqual([]);
  });

  it("tampered ciphertext in storage is refused before decryption; no file is written", async () => {
    const { listingId } = await publish("dataset-tampered-bytes", { "one.bin": 3_000 }, 1024);
    const listing = await prismaOf(p).streamListing.findUniqueOrThrow({ where: { id: listingId } });
    const chunk = await prismaOf(p).streamChunk.findUniqueOrThrow({ where: { chunkId: listing.chunkIds[1]! } });
    const [, bucket, key] = /^local:([^/]+)\/(.+)$/.exec(chunk.storageRef!)!;
    const file = path.join(p.dataDir, "stream-chunks", bucket!, key!);
    const bytes = await readFile(file);
    bytes[5] ^= 0xff;
    await writeFile(file, bytes);
    const out = path.join(work, "refused-bytes");
    const refused = await buyStream(createMarketsClient({ baseUrl: p.markets }), purchase(listingId, out)).catch((e) => e);
    expect([refused.name, refused.code]).toEqual(["FlowError", "CIPHERTEXT_HASH_MISMATCH"]);
    expect(await readdir(out)).toEqual([".stream-chunks"]);
  });
});
