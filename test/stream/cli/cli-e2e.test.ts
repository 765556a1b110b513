/**
 * `cli stream` end to end against a running platform (real routes, database, chain, storage, sockets): a seller
 * publishes a directory, a buyer verifies, buys on the order flow (stablecoin transfer proven on the chain, access
 * prepared by the seller's `stream serve` agent, download over HTTP) and on the purchase flow (delivery peer to peer
 * from the seller's agent), and the files bought equal the originals. A tampered hash or signature is refused by
 * `verify` and by `buy` before any order or payment; tampered ciphertext is refused before decryption.
 */
import { readFile, readdir, writeFile, mkdtemp } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../../support/cli.js";
import { bindMachine, createSeller, expectOk, api, PLATFORM_START_TIMEOUT_MS, prismaOf, signingKey, startMarketsPlatform, type MarketsPlatform, type StreamSeller } from "../helpers.js";
import { P2pError, downloadChunks } from "../../../subgraphs/markets/stream/p2p/index.js";
import { signManifest } from "../../../subgraphs/markets/stream/index.js";
import { sameFiles, startServe, writeDataset, writeSellerFile, type ServeProcess } from "./cli-helpers.js";

let p: MarketsPlatform;
let seller: StreamSeller;
let work: string;
let sellerFile: string;
let serve: ServeProcess;
let originals: Map<string, Buffer>;
let listingId: string;

const lines = (stdout: string) => stdout.trim().split("\n").filter(Boolean).map((line) => JSON.parse(line));
const cli = (args: string[], env: Record<string, string> = {}) => runCli(p, ["stream", ...args, "--api", p.markets], env);

beforeAll(async () => {
  p = await startMarketsPlatform();
  seller = await createSeller(p, 0);
  work = await mkdtemp(path.join(os.tmpdir(), "stream-cli-"));
  sellerFile = path.join(work, "seller.json");
  await writeSellerFile(sellerFile, seller);
  originals = await writeDataset(path.join(work, "dataset"), { "scan-001.bin": 10_000, "nested/scan-002.bin": 4_096, "notes.txt": 17, "empty.log": 0 });
  serve = startServe(p, sellerFile);
  await serve.line((l) => l.step === "serve");
}, PLATFORM_START_TIMEOUT_MS);

afterAll(async () => {
  await serve?.stop();
  await p?.close();
});

describe("cli stream: publish, verify, buy", () => {
  it("publish: chunks, encrypts, signs and uploads the directory and lists it", async () => {
    const run = await cli(["publish", path.join(work, "dataset"), "--seller", sellerFile, "--title", "lidar scans", "--price", "0.25", "--chunk-size", "4096"]);
    expect(run.code, run.stderr).toBe(0);
    const [result] = lines(run.stdout);
    // 1 index chunk + 3 + 1 + 1 chunks (10,000 bytes at 4,096; 4,096; 17; the empty file has none).
    expect(result).toMatchObject({ step: "publish", machineId: seller.machineId, files: 4, bytes: 14_113, chunks: 6, chunkSize: 4096 });
    listingId = result.listingId;
    const listing = await prismaOf(p).streamListing.findUniqueOrThrow({ where: { id: listingId } });
    expect(listing.chunkIds).toHaveLength(6);
    expect(listing.priceAmount).toBe("0.25");
    expect(run.stderr).toContain("publish: 100%");
  });

  it("verify: every manifest, signature and the chain check out", async () => {
    const run = await cli(["verify", listingId]);
    expect(run.code, run.stderr).toBe(0);
    expect(lines(run.stdout)).toEqual([expect.objectContaining({ step: "verify", listingId, chunks: 6, verified: true })]);
  });

  it("buy (order flow): pays on the chain, the seller's agent prepares access, the files equal the originals", async () => {
    const out = path.join(work, "bought-order");
    const run = await cli(["buy", listingId, "--out", out, "--buyer-key", path.join(work, "buyer.json"), "--buyer-id", "buyer-e2e", "--wait", "60"]);
    expect(run.code, run.stderr).toBe(0);
    const steps = lines(run.stdout);
    expect(steps.map((s) => s.step)).toEqual(["verify", "order", "transfer", "pay", "download", "decrypt"]);
    expect(steps[5]).toMatchObject({ files: 4, bytes: 14_113 });
    expect(await sameFiles(out, originals)).toBe(true);
    const order = await prismaOf(p).streamOrder.findUniqueOrThrow({ where: { id: steps[1].orderId } });
    expect(order.status).toBe("delivered");
    expect(order.paymentTxHash).toBe(steps[2].txHash);
    expect(serve.lines).toContainEqual(expect.objectContaining({ step: "prepare-access", orderId: steps[1].orderId, chunks: 6 }));
  });

  it("buy (purchase flow): every transport GET /delivery-transports offers delivers peer to peer from the seller's agent", async () => {
    // The buying agent acts for a machine of its own.
    const buyerMachine = await bindMachine(p, p.machine("active", 1));
    const paired = await runCli(p, ["market", "pair", "--machine", buyerMachine.id, "--api", p.markets]);
    expect(paired.code, paired.stderr).toBe(0);
    const { pairingToken } = lines(paired.stdout)[0];
    const { items } = expectOk(await api(p, "GET", "/delivery-transports"));
    const offered: string[] = items.map((t: { transportId: string }) => t.transportId);
    expect(offered.sort()).toEqual(["libp2p", "tcp"]);
    // The seller's agent announced every offered transport.
    const announced = await serve.line((l) => l.step === "serve");
    expect(announced.transports.sort()).toEqual(offered);
    for (const transport of offered) {
      const out = path.join(work, `bought-purchase-${transport}`);
      const run = await cli(["buy", listingId, "--flow", "purchase", "--transport", transport, "--token", pairingToken, "--out", out, "--buyer-key", path.join(work, `buyer-${transport}.json`), "--wait", "60"]);
      expect(run.code, run.stderr).toBe(0);
      const steps = lines(run.stdout);
      expect(steps.map((s) => s.step)).toEqual(["verify", "purchase", "transfer", "pay", "download", "decrypt"]);
      expect(steps[1]).toMatchObject({ status: "payment_pending", transportId: transport });
      expect(steps[4]).toMatchObject({ step: "download", transport });
      expect(await sameFiles(out, originals)).toBe(true);
      const purchase = await prismaOf(p).streamPurchase.findUniqueOrThrow({ where: { id: steps[1].purchaseId } });
      expect(purchase.status).toBe("completed");
      expect(await serve.line((l) => l.step === "delivered" && l.purchaseId === steps[1].purchaseId)).toMatchObject({ transportId: transport });
    }
  });
});

describe("cli stream: refusals", () => {
  /** Alters one stored manifest for the duration of `body`. */
  async function withTamperedManifest(chunkId: string, change: (m: any) => void, body: () => Promise<void>) {
    const prisma = prismaOf(p);
    const row = await prisma.streamChunk.findUniqueOrThrow({ where: { chunkId } });
    const altered = structuredClone(row.manifest as any);
    change(altered);
    await prisma.streamChunk.update({ where: { chunkId }, data: { manifest: altered } });
    try {
      await body();
    } finally {
      await prisma.streamChunk.update({ where: { chunkId }, data: { manifest: row.manifest as any } });
    }
  }

  /**
   * Signs the manifest again, validly, with a fresh key that only the manifest itself names (its `signature` carries
   * the key ID and public key): a buyer that trusted the manifest's own key would accept it.
   */
  const resignedBy = (keyId: () => string) => (m: any) => {
    const { signature, ...unsigned } = m;
    Object.assign(m, signManifest(unsigned, signingKey(signature.machineDid, keyId()).signer));
  };

  const cases: Array<[string, (m: any) => void, RegExp]> = [
    ["signature", (m) => void (m.signature.value = `${m.signature.value[0] === "0" ? "1" : "0"}${m.signature.value.slice(1)}`), /SIGNATURE_INVALID at chunk 2/],
    ["ciphertext hash", (m) => void (m.encryptedDataHash = `sha256:${"0".repeat(64)}`), /CHUNK_ID_MISMATCH at chunk 2/],
    ["signer (a valid signature by a key the machine never registered)", resignedBy(() => "unregistered-key-1"), /SIGNER_UNKNOWN at chunk 2: .*not registered/],
    ["signer (the registered key ID with another public key)", resignedBy(() => seller.signer.keyId), /SIGNER_UNKNOWN at chunk 2: .*not registered/],
  ];
  it.each(cases)("a tampered %s: verify and buy refuse before any order or payment", async (_what, change, code) => {
    const listing = await prismaOf(p).streamListing.findUniqueOrThrow({ where: { id: listingId } });
    const ordersBefore = await prismaOf(p).streamOrder.count();
    await withTamperedManifest(listing.chunkIds[2], change, async () => {
      const verify = await cli(["verify", listingId]);
      expect(verify.code).toBe(1);
      expect(verify.stderr).toMatch(code);
      expect(verify.stderr).toContain("refused before payment");
      const out = path.join(work, `refused-${ordersBefore}`);
      const buy = await cli(["buy", listingId, "--out", out, "--buyer-key", path.join(work, "buyer.json")]);
      expect(buy.code).toBe(1);
      expect(buy.stderr).toMatch(code);
      expect(buy.stdout).toBe("");
      expect(await readdir(out).catch(() => [])).toEqual([]);
    });
    expect(await prismaOf(p).streamOrder.count()).toBe(ordersBefore);
  });

  it("a revoked key vouches only for chunks registered before its revocation: verify refuses a chunk registered after", async () => {
    const prisma = prismaOf(p);
    const key = await prisma.streamSigningKey.findFirstOrThrow({ where: { machineId: seller.machineId, keyId: seller.signer.keyId } });
    const listing = await prisma.streamListing.findUniqueOrThrow({ where: { id: listingId } });
    const first = await prisma.streamChunk.findUniqueOrThrow({ where: { chunkId: listing.chunkIds[0]! } });
    try {
      await prisma.streamSigningKey.update({ where: { id: key.id }, data: { status: "revoked", revokedAt: new Date() } });
      expect((await cli(["verify", listingId])).code).toBe(0);
      await prisma.streamSigningKey.update({ where: { id: key.id }, data: { revokedAt: first.createdAt } });
      const verify = await cli(["verify", listingId]);
      expect(verify.code).toBe(1);
      expect(verify.stderr).toMatch(/refused before payment: SIGNING_KEY_REVOKED at chunk 0: .*after its signing key was revoked/);
    } finally {
      await prisma.streamSigningKey.update({ where: { id: key.id }, data: { status: "active", revokedAt: null } });
    }
    expect((await cli(["verify", listingId])).code).toBe(0);
  });

  it("tampered ciphertext in storage: the download is refused before decryption and no file is written", async () => {
    const dataset = await writeDataset(path.join(work, "dataset-2"), { "one.bin": 3_000 });
    const published = await cli(["publish", path.join(work, "dataset-2"), "--seller", sellerFile, "--price", "0.10", "--chunk-size", "1024"]);
    expect(published.code, published.stderr).toBe(0);
    const { listingId: second } = lines(published.stdout)[0];
    const listing = await prismaOf(p).streamListing.findUniqueOrThrow({ where: { id: second } });
    const chunk = await prismaOf(p).streamChunk.findUniqueOrThrow({ where: { chunkId: listing.chunkIds[1] } });
    const [, bucket, key] = /^local:([^/]+)\/(.+)$/.exec(chunk.storageRef!)!;
    const file = path.join(p.dataDir, "stream-chunks", bucket, key);
    const bytes = await readFile(file);
    bytes[5] ^= 0xff;
    await writeFile(file, bytes);
    const out = path.join(work, "bought-tampered");
    const buy = await cli(["buy", second, "--out", out, "--buyer-key", path.join(work, "buyer.json"), "--wait", "60"]);
    expect(buy.code).toBe(1);
    expect(buy.stderr).toMatch(/refused before decryption: CIPHERTEXT_HASH_MISMATCH/);
    expect(lines(buy.stdout).map((s) => s.step)).toEqual(["verify", "order", "transfer", "pay"]);
    expect(await readdir(out)).toEqual([".stream-chunks"]);
    expect(await sameFiles(out, dataset)).toBe(false);
  });

  it("the seller's delivery server refuses a handoff the platform did not issue, before sending a byte", async () => {
    const { p2p } = await serve.line((l) => l.step === "serve");
    const [host, port] = p2p.split(":");
    const listing = await prismaOf(p).streamListing.findUniqueOrThrow({ where: { id: listingId } });
    const manifests = (await prismaOf(p).streamChunk.findMany({ where: { chunkId: { in: listing.chunkIds } } })).map((row) => row.manifest as any);
    const dir = path.join(work, "forged");
    const attempt = downloadChunks({ host, port: Number(port), purchaseId: "spur_0000000000000000", deliverySessionId: "sdel_0000000000000000", buyerId: "0xforged", handoff: `shof_${"A".repeat(43)}`, manifests, dir });
    await expect(attempt).rejects.toThrow(P2pError);
    await expect(attempt).rejects.toThrow(/DELIVERY_REFUSED: HANDOFF_INVALID/);
    expect(await readdir(dir).catch(() => [])).toEqual([]);
  });

  it("publish refuses a missing directory and a bad price with a clear message", async () => {
    const missing = await cli(["publish", path.join(work, "nope"), "--seller", sellerFile, "--price", "1"]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("is not a directory");
    const price = await cli(["publish", path.join(work, "dataset"), "--seller", sellerFile, "--price", "cheap"]);
    expect(price.code).toBe(2);
    expect(price.stderr).toContain("--price must be a decimal amount");
    expect(expectOk(await api(p, "GET", `/stream/listings?machineId=${seller.machineId}`)).items).toHaveLength(2);
  });
});
