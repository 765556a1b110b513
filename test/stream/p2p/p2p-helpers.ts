/**
 * Helpers of the peer-to-peer bounds tests: an encrypted dataset in a seller's local store, a delivery server over it
 * that records every connection's report, a raw client that sees the frames and when the seller closed, and a relay
 * that forwards the seller's bytes at a set pace.
 */
import { mkdtemp } from "node:fs/promises";
import { connect, createServer, type Server, type Socket } from "node:net";
import os from "node:os";
import path from "node:path";
import { LocalChunkStorage, encryptStream, unwrapChunkKey, type ChunkManifest } from "../../../subgraphs/markets/stream/index.js";
import {
  FrameDecoder, P2P_ENCODING, P2P_PROTOCOL, P2pError, decryptChunkFiles, encodeFrame, startDeliveryServer,
  type ChunkRequestFrame, type ConnectionReport, type DeliveryLimits, type DeliveryServer, type Frame,
} from "../../../subgraphs/markets/stream/p2p/index.js";
import { collect, concat, patternStream, streamParties } from "../fixtures.js";

export const parties = streamParties();

export interface Dataset {
  storage: LocalChunkStorage;
  manifests: ChunkManifest[];
  /** The plaintext. */
  original: Uint8Array;
}

/** `count` chunks of `chunkSize` bytes, encrypted into a fresh local store. */
export async function dataset(count: number, chunkSize: number): Promise<Dataset> {
  const root = await mkdtemp(path.join(os.tmpdir(), "p2p-bounds-"));
  const storage = new LocalChunkStorage(root);
  const manifests: ChunkManifest[] = [];
  for await (const chunk of encryptStream(patternStream(count * chunkSize), { signer: parties.signer, recipients: parties.recipients, chunkSize })) {
    const stored = await storage.put("listing", chunk.manifest.chunkId.slice(7), chunk.ciphertext);
    manifests.push({ ...chunk.manifest, storageRef: stored.ref });
  }
  return { storage, manifests, original: concat(await collect(patternStream(count * chunkSize))) };
}

export interface Seller {
  server: DeliveryServer;
  reports: ConnectionReport[];
  requests: ChunkRequestFrame[];
  acks: string[];
  /** The report of the next connection to close with `outcome` (or of one already closed so), within `ms`. */
  report(outcome: string, ms?: number): Promise<ConnectionReport | "none">;
}

/** A delivery server granting every chunk of `data` to the handoff `shof_good` (after `authorizeDelayMs`). */
export async function seller(data: Dataset, limits: Partial<DeliveryLimits>, authorizeDelayMs = 0): Promise<Seller> {
  const reports: ConnectionReport[] = [];
  const requests: ChunkRequestFrame[] = [];
  const acks: string[] = [];
  const server = await startDeliveryServer({
    storage: [data.storage],
    limits,
    onRequest: (r) => void requests.push(r),
    onAck: (ack) => void acks.push(ack.requestId),
    onClosed: (r) => void reports.push(r),
    async authorize(request) {
      if (authorizeDelayMs > 0) await sleep(authorizeDelayMs);
      if (request.handoff !== "shof_good") throw new P2pError("HANDOFF_INVALID", "unknown handoff");
      return { transportId: "tcp", chunks: data.manifests.map((m) => ({ manifest: m, storageRef: m.storageRef! })) };
    },
  });
  const report = async (outcome: string, ms = 5_000) => {
    const deadline = Date.now() + ms;
    while (Date.now() < deadline) {
      const found = reports.find((r) => r.outcome === outcome);
      if (found) return found;
      await sleep(20);
    }
    return "none" as const;
  };
  return { server, reports, requests, acks, report };
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves with the value, or "timeout" after `ms`: a bound that is missing fails the test instead of hanging it. */
export const within = <T>(promise: Promise<T>, ms: number) => Promise.race([promise, sleep(ms).then(() => "timeout" as const)]);

export const requestFrame = (manifests: ChunkManifest[], over: Partial<ChunkRequestFrame> = {}): ChunkRequestFrame => ({
  type: "chunk.request", protocol: P2P_PROTOCOL, encoding: P2P_ENCODING, requestId: `r-${Math.random().toString(36).slice(2)}`,
  purchaseId: "spur_1", deliverySessionId: "sdel_1", buyerId: "buyer-1", chunkIds: manifests.map((m) => m.chunkId),
  resumeOffsets: {}, handoff: "shof_good", ...over,
});

export interface RawClient {
  socket: Socket;
  frames: Frame[];
  /** Milliseconds from connecting to the seller closing the connection. */
  closed: Promise<number>;
}

/** A client that reads every frame the seller sends and notes when the connection closed. */
export async function rawClient(server: DeliveryServer): Promise<RawClient> {
  const socket = connect({ host: server.host, port: server.port });
  socket.on("error", () => undefined);
  await new Promise((resolve) => socket.once("connect", resolve));
  const started = Date.now();
  const frames: Frame[] = [];
  const decoder = new FrameDecoder();
  socket.on("data", (bytes: Buffer) => {
    try {
      frames.push(...decoder.push(bytes));
    } catch {
      socket.destroy();
    }
  });
  const closed = new Promise<number>((resolve) => socket.once("close", () => resolve(Date.now() - started)));
  return { socket, frames, closed };
}

export const errorsOf = (frames: Frame[]) => frames.filter((f) => f.type === "delivery.error").map((f) => (f as { code: string }).code);

/** A relay in front of the seller forwarding its bytes at `bytesPerTick` per `tickMs` (a slow but honest buyer's pace). */
export async function pacedRelay(server: DeliveryServer, bytesPerTick: number, tickMs: number): Promise<Server & { port: number }> {
  const relay = createServer((inbound: Socket) => {
    const outbound = connect({ host: server.host, port: server.port });
    let taken = 0;
    for (const s of [inbound, outbound]) s.on("error", () => undefined);
    inbound.pipe(outbound);
    outbound.on("data", (bytes: Buffer) => {
      inbound.write(bytes);
      taken += bytes.length;
      if (taken >= bytesPerTick) {
        taken = 0;
        outbound.pause();
        setTimeout(() => outbound.resume(), tickMs);
      }
    });
    outbound.on("end", () => inbound.end());
    outbound.on("close", () => inbound.destroySoon());
    inbound.on("close", () => outbound.destroy());
  });
  await new Promise<void>((resolve) => relay.listen(0, "127.0.0.1", resolve));
  return Object.assign(relay, { port: (relay.address() as { port: number }).port });
}

/** The plaintext of downloaded chunk files, decrypted with the machine's own key (the test is the seller too). */
export async function plaintextOf(manifests: ChunkManifest[], files: Map<string, string>): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  await decryptChunkFiles(manifests.map((m) => ({ manifest: m, file: files.get(m.chunkId)! })), (m) => unwrapChunkKey(m, parties.machineBox.secretKey), (p) => void parts.push(p));
  return concat(parts);
}

export { encodeFrame };
