/**
 * Peer-to-peer delivery over real TCP sockets: the seller's delivery server reads ciphertext from the local storage
 * driver, the buyer's client checks and keeps it, the files decrypt to the original; a connection killed mid-chunk
 * is resumed at the offset held; a wrong or expired handoff, a chunk not bought, a bad resume offset, tampered stored
 * ciphertext and a substituted manifest are each refused with their code and leave no complete chunk behind.
 */
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { createServer, connect, type Server, type Socket } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LocalChunkStorage, encryptStream, unwrapChunkKey, type ChunkManifest } from "../../../subgraphs/markets/stream/index.js";
import {
  P2pError, decryptChunkFiles, downloadChunks, downloadWithResume, startDeliveryServer, type ChunkRequestFrame, type DeliveryServer, type DownloadOptions,
} from "../../../subgraphs/markets/stream/p2p/index.js";
import { StreamFormatError } from "../../../subgraphs/markets/stream/errors.js";
import { collect, concat, patternStream, sameBytes, streamParties } from "../fixtures.js";

const CHUNK_SIZE = 64 * 1024;
const FRAME_BYTES = 16 * 1024;
const parties = streamParties();
let root: string;
let storage: LocalChunkStorage;
let manifests: ChunkManifest[];
let original: Uint8Array;
let server: DeliveryServer;
const requests: ChunkRequestFrame[] = [];
const acks: string[] = [];
const HANDOFFS: Record<string, { expiresAt: number; purchaseId: string; buyerId: string }> = {
  shof_good: { expiresAt: Number.MAX_SAFE_INTEGER, purchaseId: "spur_1", buyerId: "buyer-1" },
  shof_old: { expiresAt: 0, purchaseId: "spur_1", buyerId: "buyer-1" },
};

beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), "p2p-"));
  storage = new LocalChunkStorage(path.join(root, "seller"));
  original = concat(await collect(patternStream(4 * CHUNK_SIZE + 1000, 10_000)));
  manifests = [];
  for await (const chunk of encryptStream(patternStream(original.length, 10_000), { signer: parties.signer, recipients: parties.recipients, chunkSize: CHUNK_SIZE })) {
    const stored = await storage.put("listing-1", chunk.manifest.chunkId.slice(7), chunk.ciphertext);
    manifests.push({ ...chunk.manifest, storageRef: stored.ref });
  }
  server = await startDeliveryServer({
    storage: [storage],
    dataFrameBytes: FRAME_BYTES,
    onRequest: (r) => requests.push(r),
    onAck: (ack) => void acks.push(ack.requestId),
    async authorize(request) {
      const handoff = HANDOFFS[request.handoff];
      if (!handoff || handoff.purchaseId !== request.purchaseId || handoff.buyerId !== request.buyerId) throw new P2pError("HANDOFF_INVALID", "unknown handoff");
      if (handoff.expiresAt < Date.now()) throw new P2pError("HANDOFF_EXPIRED", "handoff expired");
      return { transportId: "tcp", chunks: manifests.slice(0, 4).map((m) => ({ manifest: m, storageRef: m.storageRef! })) };
    },
  });
});

afterAll(async () => {
  await server?.close();
  await rm(root, { recursive: true, force: true });
});

const options = (dir: string, over: Partial<DownloadOptions> = {}): DownloadOptions => ({
  host: server.host, port: server.port, purchaseId: "spur_1", deliverySessionId: "sdel_1", buyerId: "buyer-1",
  handoff: "shof_good", manifests: manifests.slice(0, 4), dir: path.join(root, dir), ...over,
});

async function refusal(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof P2pError || error instanceof StreamFormatError) return error.message;
    throw error;
  }
  return "no refusal";
}

const listing = async (dir: string) => (await readdir(path.join(root, dir)).catch(() => [] as string[])).sort();

/** Decrypts with the machine's own key (the test is the seller too) and compares to the first four chunks' plaintext. */
async function plaintextOf(files: Map<string, string>): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  await decryptChunkFiles(manifests.slice(0, 4).map((m) => ({ manifest: m, file: files.get(m.chunkId)! })), (m) => unwrapChunkKey(m, parties.machineBox.secretKey), (p) => void parts.push(p));
  return concat(parts);
}

describe("delivery over a real socket", () => {
  it("delivers the granted chunks; the files decrypt to the original bytes; the seller gets the ack", async () => {
    const result = await downloadChunks(options("whole"));
    expect(result.bytesReceived).toBe(manifests.slice(0, 4).reduce((n, m) => n + m.encryptedSize, 0));
    expect(sameBytes(await plaintextOf(result.files), original.subarray(0, 4 * CHUNK_SIZE))).toBe(true);
    expect(acks).toContain(requests.at(-1)!.requestId);
    expect((await listing("whole")).every((f) => f.endsWith(".enc"))).toBe(true);
  });

  it("resumes a connection killed mid-chunk at the offset held, and ends with the same bytes", async () => {
    // A relay between buyer and seller that cuts the first connection after 1.5 chunks of the seller's bytes.
    let cut = false;
    const relay: Server = createServer((inbound: Socket) => {
      const outbound = connect({ host: server.host, port: server.port });
      let forwarded = 0;
      inbound.on("error", () => undefined);
      outbound.on("error", () => undefined);
      inbound.pipe(outbound);
      outbound.on("data", (bytes: Buffer) => {
        forwarded += bytes.length;
        inbound.write(bytes);
        if (!cut && forwarded > CHUNK_SIZE * 1.8) {
          cut = true;
          inbound.destroy();
          outbound.destroy();
        }
      });
      outbound.on("end", () => inbound.end());
    });
    await new Promise<void>((resolve) => relay.listen(0, "127.0.0.1", resolve));
    const port = (relay.address() as { port: number }).port;
    const before = requests.length;
    const retries: string[] = [];
    try {
      const result = await downloadWithResume(options("resumed", { port }), 3, (error) => void retries.push(error.code));
      expect(retries).toEqual(["DELIVERY_INCOMPLETE"]);
      expect(result.attempts).toBe(2);
      const second = requests[before + 1];
      const [[resumedId, offset]] = Object.entries(second.resumeOffsets);
      const resumedManifest = manifests.find((m) => m.chunkId === resumedId)!;
      expect(offset).toBeGreaterThan(0);
      expect(offset).toBeLessThan(resumedManifest.encryptedSize);
      expect(offset % FRAME_BYTES).toBe(0);
      expect(second.chunkIds).not.toContain(manifests[0].chunkId); // the first chunk was complete and not asked again
      expect(result.resumes).toEqual([second.resumeOffsets]);
      expect(sameBytes(await plaintextOf(result.files), original.subarray(0, 4 * CHUNK_SIZE))).toBe(true);
    } finally {
      relay.close();
    }
  });
});

describe("refusals", () => {
  it("refuses a wrong handoff before any byte is sent", async () => {
    expect(await refusal(downloadChunks(options("wrong", { handoff: "shof_forged" })))).toMatch(/^DELIVERY_REFUSED: HANDOFF_INVALID/);
    expect(await listing("wrong")).toEqual([]);
  });

  it("refuses an expired handoff", async () => {
    expect(await refusal(downloadChunks(options("expired", { handoff: "shof_old" })))).toMatch(/^DELIVERY_REFUSED: HANDOFF_EXPIRED/);
    expect(await listing("expired")).toEqual([]);
  });

  it("refuses a handoff presented for another buyer", async () => {
    expect(await refusal(downloadChunks(options("other-buyer", { buyerId: "buyer-2" })))).toMatch(/^DELIVERY_REFUSED: HANDOFF_INVALID/);
  });

  it("refuses a chunk that is not part of the delivery", async () => {
    expect(await refusal(downloadChunks(options("not-bought", { manifests: manifests.slice(3, 5) })))).toMatch(/^DELIVERY_REFUSED: CHUNK_NOT_BOUGHT/);
    expect(await listing("not-bought")).toEqual([]);
  });

  it("refuses a resume offset beyond the chunk (a part larger than the chunk is dropped client-side, so send it raw)", async () => {
    const dir = path.join(root, "beyond");
    const { mkdir } = await import("node:fs/promises");
    await mkdir(dir, { recursive: true });
    // The client drops oversize parts; exercise the seller's check with a raw request through the client's frames.
    const { writeFrame } = await import("../../../subgraphs/markets/stream/p2p/wire.js");
    const { readFrames } = await import("../../../subgraphs/markets/stream/p2p/decoder.js");
    const socket = connect({ host: server.host, port: server.port });
    await new Promise((resolve) => socket.once("connect", resolve));
    await writeFrame(socket, {
      type: "chunk.request", protocol: "/peaqos/stream/chunk/1.0.0", encoding: "peaqos-json-frame-v1", requestId: "r-beyond",
      purchaseId: "spur_1", deliverySessionId: "sdel_1", buyerId: "buyer-1", chunkIds: [manifests[0].chunkId],
      resumeOffsets: { [manifests[0].chunkId]: manifests[0].encryptedSize + 1 }, handoff: "shof_good",
    });
    const frames = await collect(readFrames(socket));
    expect(frames).toEqual([expect.objectContaining({ type: "delivery.error", requestId: "r-beyond", code: "RESUME_OFFSET_INVALID" })]);
  });

  it("keeps no chunk whose stored ciphertext was tampered with (CIPHERTEXT_HASH_MISMATCH before decryption)", async () => {
    const victim = manifests[2];
    const file = path.join(root, "seller", "listing-1", victim.chunkId.slice(7));
    const good = await readFile(file);
    const bad = Buffer.from(good);
    bad[100] ^= 1;
    await writeFile(file, bad);
    try {
      expect(await refusal(downloadChunks(options("tampered")))).toMatch(/^CIPHERTEXT_HASH_MISMATCH:/);
      const kept = await listing("tampered");
      expect(kept).not.toContain(`${victim.chunkId.slice(7)}.enc`);
      expect(kept).not.toContain(`${victim.chunkId.slice(7)}.part`);
    } finally {
      await writeFile(file, good);
    }
  });

  it("refuses a manifest from the seller that differs from the verified one", async () => {
    const altered = manifests.slice(0, 4).map((m, i) => (i === 1 ? { ...m, encryptedSize: m.encryptedSize + 1 } : m));
    expect(await refusal(downloadChunks(options("manifest", { manifests: altered })))).toMatch(/^MANIFEST_MISMATCH:/);
  });
});
