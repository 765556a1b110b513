/**
 * Child of stream-dataset.ts: one side of publishing and buying a large dataset, in its own process so its peak RSS
 * (a high-water mark, sampled at every quarter) is its own. Roles:
 *   publish <dir> <store> <work> <chunkSize>   the CLI's encryptDataset, ciphertext into the seller's local store,
 *                                              manifests and buyer access into <work>/manifests.jsonl
 *   serve <store> <work>                       the p2p delivery server over the store; prints its port
 *   buy <port> <work> <outDir>                 the p2p client (hash checked per chunk) then the CLI's decryptDataset
 * Each prints one JSON line: { role, startRssMb, marks (peak RSS at each quarter), peakRssMb, cpuSeconds, seconds, bytes }.
 */
import { createWriteStream, readFileSync } from "node:fs";
import path from "node:path";
import nacl from "tweetnacl";
import { LocalChunkStorage, createBuyerAccess, toHex, type ChunkManifest } from "../../../subgraphs/markets/stream/index.js";
import { downloadChunks, startDeliveryServer } from "../../../subgraphs/markets/stream/p2p/index.js";
import { datasetIndex, encryptDataset } from "../../../clients/typescript/src/stream/dataset.js";
import { decryptDataset } from "../../../clients/typescript/src/stream/fetch.js";
import { peakRssMb } from "../stats.js";

const MB = 1024 * 1024;
const startRssMb = process.memoryUsage().rss / MB;
const cpu0 = process.cpuUsage();
const t0 = performance.now();
const marks: Array<{ at: string; peakRssMb: number }> = [];
const done = (role: string, bytes: number, extra: Record<string, unknown> = {}) => {
  const cpu = process.cpuUsage(cpu0);
  console.log(JSON.stringify({ role, startRssMb, marks, peakRssMb: peakRssMb(), cpuSeconds: (cpu.user + cpu.system) / 1e6, seconds: (performance.now() - t0) / 1000, bytes, ...extra }));
};
const quarterMarker = (total: number) => {
  let next = total / 4;
  return (doneBytes: number) => {
    while (doneBytes >= next && marks.length < 4) {
      marks.push({ at: `${Math.round((100 * next) / total)}%`, peakRssMb: peakRssMb() });
      next += total / 4;
    }
  };
};

// Fixed keys: the bench's seller and buyer (never used outside it).
const seed = (n: number) => new Uint8Array(32).fill(n);
const signing = nacl.sign.keyPair.fromSeed(seed(1));
const machineBox = nacl.box.keyPair.fromSecretKey(seed(2));
const buyerBox = nacl.box.keyPair.fromSecretKey(seed(3));
const readManifests = (work: string) =>
  readFileSync(path.join(work, "manifests.jsonl"), "utf8").trim().split("\n").map((line) => JSON.parse(line) as { manifest: ChunkManifest; access: unknown });

const [role, ...args] = process.argv.slice(2);
if (role === "publish") {
  const [dir, storeRoot, work, chunkSizeText] = args;
  const index = await datasetIndex(dir, Number(chunkSizeText));
  const total = index.files.reduce((n, f) => n + f.bytes, 0);
  const mark = quarterMarker(total);
  const store = new LocalChunkStorage(storeRoot);
  const out = createWriteStream(path.join(work, "manifests.jsonl"));
  let bytes = 0;
  const context = {
    signer: { machineDid: "did:peaq:0xbench", keyId: "bench", secretKey: signing.secretKey },
    recipients: [{ recipientId: "machine", recipientType: "machine" as const, publicKey: machineBox.publicKey }],
  };
  for await (const chunk of encryptDataset(dir, index, context, null)) {
    await store.put("seller", chunk.manifest.chunkId.slice(7), chunk.ciphertext);
    const access = createBuyerAccess(chunk.manifest, machineBox.secretKey, { recipientId: "buyer", publicKey: buyerBox.publicKey });
    if (!out.write(`${JSON.stringify({ manifest: chunk.manifest, access })}\n`)) await new Promise<void>((r) => out.once("drain", () => r()));
    if (chunk.file !== null) bytes += chunk.ciphertext.length - 16;
    mark(bytes);
  }
  await new Promise<void>((r) => out.end(() => r()));
  done("publish", bytes);
} else if (role === "serve") {
  const [storeRoot, work] = args;
  const entries = readManifests(work);
  // The buyer asks for a long chunk list over several connections (one request frame each): done after the last ack.
  const undelivered = new Set(entries.map((e) => e.manifest.chunkId));
  const server = await startDeliveryServer({
    storage: [new LocalChunkStorage(storeRoot)],
    authorize: async () => ({ transportId: "tcp", chunks: entries.map((e) => ({ manifest: e.manifest, storageRef: `local:seller/${e.manifest.chunkId.slice(7)}` })) }),
    onAck: async (_ack, request) => {
      for (const id of request.chunkIds) undelivered.delete(id);
      if (undelivered.size > 0) return;
      done("serve", entries.reduce((n, e) => n + e.manifest.encryptedSize, 0));
      await server.close();
    },
  });
  console.log(JSON.stringify({ port: server.port }));
} else if (role === "buy") {
  const [port, work, outDir] = args;
  const entries = readManifests(work);
  const manifests = entries.map((e) => e.manifest);
  const total = manifests.reduce((n, m) => n + m.encryptedSize, 0);
  const mark = quarterMarker(total);
  const result = await downloadChunks({
    host: "127.0.0.1", port: Number(port), purchaseId: "spur_bench", deliverySessionId: "sdel_bench", buyerId: "buyer", handoff: "bench",
    manifests, dir: path.join(outDir, ".stream-chunks"), onProgress: (d) => mark(d),
  });
  const downloadSeconds = (performance.now() - t0) / 1000;
  const buyer = { buyerId: "buyer", secretKey: buyerBox.secretKey, publicKey: buyerBox.publicKey, publicKeyHex: toHex(buyerBox.publicKey) };
  const written = await decryptDataset(manifests, result.files, entries.map((e) => e.access), buyer, outDir);
  done("buy", written.bytes, { downloadSeconds, files: written.files });
} else {
  throw new Error(`unknown role ${role}`);
}
