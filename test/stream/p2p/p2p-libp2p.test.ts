/**
 * Transport `libp2p`: two real libp2p nodes on loopback (TCP + Noise + Yamux), the seller's delivery server on the
 * chunk protocol, the buyer's client dialing its announced multiaddr. The same frames and checks as over plain TCP: the
 * files decrypt to the original, a connection cut mid-chunk resumes at the offset held, and a wrong or expired
 * handoff, a chunk not bought, a bad resume offset, tampered ciphertext and a substituted manifest are refused with
 * their codes and leave no complete chunk behind; the seller's connection cap answers SELLER_BUSY.
 */
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LocalChunkStorage, encryptStream, unwrapChunkKey, type ChunkManifest } from "../../../subgraphs/markets/stream/index.js";
import {
  P2P_PROTOCOL, P2pError, decryptChunkFiles, readFrames, writeFrame, downloadChunks, downloadWithResume, startLibp2pDeliveryServer, startLibp2pDialer,
  type ChunkRequestFrame, type DownloadOptions, type Libp2pDeliveryServer, type Libp2pDialer,
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
let server: Libp2pDeliveryServer;
let dialer: Libp2pDialer;
const requests: ChunkRequestFrame[] = [];
const acks: string[] = [];
const HANDOFFS: Record<string, { expiresAt: number; purchaseId: string; buyerId: string }> = {
  shof_good: { expiresAt: Number.MAX_SAFE_INTEGER, purchaseId: "spur_1", buyerId: "buyer-1" },
  shof_old: { expiresAt: 0, purchaseId: "spur_1", buyerId: "buyer-1" },
};

beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), "p2p-libp2p-"));
  storage = new LocalChunkStorage(path.join(root, "seller"));
  original = concat(await collect(patternStream(4 * CHUNK_SIZE + 1000, 10_000)));
  manifests = [];
  for await (const chunk of encryptStream(patternStream(original.length, 10_000), { signer: parties.signer, recipients: parties.recipients, chunkSize: CHUNK_SIZE })) {
    const stored = await storage.put("listing-1", chunk.manifest.chunkId.slice(7), chunk.ciphertext);
    manifests.push({ ...chunk.manifest, storageRef: stored.ref });
  }
  server = await startLibp2pDeliveryServer({
    storage: [storage],
    dataFrameBytes: FRAME_BYTES,
    limits: { maxConnections: 2 },
    onRequest: (r) => requests.push(r),
    onAck: (ack) => void acks.push(ack.requestId),
    async authorize(request) {
      const handoff = HANDOFFS[request.handoff];
      if (!handoff || handoff.purchaseId !== request.purchaseId || handoff.buyerId !== request.buyerId) throw new P2pError("HANDOFF_INVALID", "unknown handoff");
      if (handoff.expiresAt < Date.now()) throw new P2pError("HANDOFF_EXPIRED", "handoff expired");
      return { transportId: "libp2p", chunks: manifests.slice(0, 4).map((m) => ({ manifest: m, storageRef: m.storageRef! })) };
    },
  });
  dialer = await startLibp2pDialer();
});

afterAll(async () => {
  await dialer?.stop();
  await server?.close();
  await rm(root, { recursive: true, force: true });
});

const address = () => server.addresses[0]!;
const options = (dir: string, over: Partial<DownloadOptions> = {}): DownloadOptions => ({
  connect: () => dialer.connect(address()), transportId: "libp2p", purchaseId: "spur_1", deliverySessionId: "sdel_1", buyerId: "buyer-1",
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

async function plaintextOf(files: Map<string, string>): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  await decryptChunkFiles(manifests.slice(0, 4).map((m) => ({ manifest: m, file: files.get(m.chunkId)! })), (m) => unwrapChunkKey(m, parties.machineBox.secretKey), (p) => void parts.push(p));
  return concat(parts);
}

describe("delivery over libp2p", () => {
  it("announces multiaddrs with the seller's peer ID and speaks the chunk protocol", async () => {
    expect(server.addresses.length).toBeGreaterThan(0);
    for (const a of server.addresses) expect(a).toMatch(new RegExp(`^/ip4/127\\.0\\.0\\.1/tcp/\\d+/p2p/${server.peerId}$`));
    expect(server.node.getProtocols()).toContain(P2P_PROTOCOL);
  });

  it("delivers the granted chunks; the files decrypt to the original bytes; the seller gets the ack", async () => {
    const result = await downloadChunks(options("whole"));
    expect(result.bytesReceived).toBe(manifests.slice(0, 4).reduce((n, m) => n + m.encryptedSize, 0));
    expect(sameBytes(await plaintextOf(result.files), original.subarray(0, 4 * CHUNK_SIZE))).toBe(true);
    expect(acks).toContain(requests.at(-1)!.requestId);
    expect((await listing("whole")).every((f) => f.endsWith(".enc"))).toBe(true);
  });

  it("resumes after the libp2p connection is cut mid-chunk, at the offset held, with the same bytes", async () => {
    const before = requests.length;
    const retries: string[] = [];
    let cut = false;
    const result = await downloadWithResume(
      options("resumed", {
        onProgress: (done) => {
          if (!cut && done > CHUNK_SIZE * 1.5) {
            cut = true;
            for (const connection of dialer.node.getConnections()) connection.abort(new Error("cut by the test"));
          }
        },
      }),
      3,
      (error) => void retries.push(error.code),
    );
    expect(retries).toEqual(["DELIVERY_INCOMPLETE"]);
    expect(result.attempts).toBe(2);
    const second = requests[before + 1]!;
    const [[resumedId, offset]] = Object.entries(second.resumeOffsets);
    const resumedManifest = manifests.find((m) => m.chunkId === resumedId)!;
    expect(offset).toBeGreaterThan(0);
    expect(offset).toBeLessThan(resumedManifest.encryptedSize);
    expect(second.chunkIds).not.toContain(manifests[0]!.chunkId);
    expect(sameBytes(await plaintextOf(result.files), original.subarray(0, 4 * CHUNK_SIZE))).toBe(true);
  });
});

describe("refusals over libp2p", () => {
  it("refuses a wrong handoff before any byte is sent", async () => {
    expect(await refusal(downloadChunks(options("wrong", { handoff: "shof_forged" })))).toMatch(/^DELIVERY_REFUSED: HANDOFF_INVALID/);
    expect(await listing("wrong")).toEqual([]);
  });

  it("refuses an expired handoff", async () => {
    expect(await refusal(downloadChunks(options("expired", { handoff: "shof_old" })))).toMatch(/^DELIVERY_REFUSED: HANDOFF_EXPIRED/);
    expect(await listing("expired")).toEqual([]);
  });

  it("refuses a chunk that is not part of the delivery", async () => {
    expect(await refusal(downloadChunks(options("not-bought", { manifests: manifests.slice(3, 5) })))).toMatch(/^DELIVERY_REFUSED: CHUNK_NOT_BOUGHT/);
    expect(await listing("not-bought")).toEqual([]);
  });

  it("refuses a handoff presented for another buyer", async () => {
    expect(await refusal(downloadChunks(options("other-buyer", { buyerId: "buyer-2" })))).toMatch(/^DELIVERY_REFUSED: HANDOFF_INVALID/);
  });

  it("refuses a resume offset beyond the chunk (sent raw: the client drops an oversize part)", async () => {
    const connection = await dialer.connect(address());
    await writeFrame(connection, {
      type: "chunk.request", protocol: P2P_PROTOCOL, encoding: "peaqos-json-frame-v1", requestId: "r-beyond",
      purchaseId: "spur_1", deliverySessionId: "sdel_1", buyerId: "buyer-1", chunkIds: [manifests[0]!.chunkId],
      resumeOffsets: { [manifests[0]!.chunkId]: manifests[0]!.encryptedSize + 1 }, handoff: "shof_good",
    });
    const frames = await collect(readFrames(connection));
    expect(frames).toEqual([expect.objectContaining({ type: "delivery.error", requestId: "r-beyond", code: "RESUME_OFFSET_INVALID" })]);
  });

  it("keeps no chunk whose stored ciphertext was tampered with (CIPHERTEXT_HASH_MISMATCH before decryption)", async () => {
    const victim = manifests[2]!;
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

  it("answers SELLER_BUSY on a stream over the connection cap, without reading it", async () => {
    const held = [await dialer.connect(address()), await dialer.connect(address())];
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(server.connections).toBe(2);
    const third = await dialer.connect(address());
    const answer = (await readFrames(third).next()).value;
    expect(answer).toMatchObject({ type: "delivery.error", requestId: "unknown", code: "SELLER_BUSY" });
    for (const c of [...held, third]) c.destroy();
  });
});
