/**
 * The buyer's peer-to-peer client: asks the seller's delivery server for the bought chunks, resuming each from the
 * bytes already on disk (chunk-files.ts), checks each manifest the seller sends equals the verified one paid for, writes
 * each `chunk.data` at its offset while hashing, and on `chunk.end` keeps the chunk only if its size and SHA-256 equal
 * the manifest's (before any decryption). After the last chunk it sends `delivery.ack`. A connection that ends early
 * is DELIVERY_INCOMPLETE: `downloadWithResume` reconnects and continues at the offsets held.
 */
import { randomUUID } from "node:crypto";
import { connect, type Socket } from "node:net";
import { canonicalBytes } from "../encoding.js";
import type { ChunkManifest } from "../manifest.js";
import { ChunkFiles, type ChunkWriter } from "./chunk-files.js";
import { readFrames } from "./decoder.js";
import { P2pError } from "./errors.js";
import { MAX_FRAME_BYTES, P2P_ENCODING, P2P_PROTOCOL, type ChunkRequestFrame, type Frame } from "./frames.js";
import { REQUEST_FRAME_MAX_BYTES } from "./limits.js";
import { closeGracefully, writeFrame, type Connection } from "./wire.js";

export interface DownloadOptions {
  /** The seller's `tcp` address; unused when `connect` is given. */
  host?: string;
  port?: number;
  /** Opens one connection of another transport (libp2p.ts: a libp2p stream); default a TCP connection to host:port. */
  connect?(): Promise<Connection>;
  purchaseId: string;
  deliverySessionId: string;
  buyerId: string;
  handoff: string;
  transportId?: string;
  /** Verified manifests (verify.ts) of the chunks to fetch, in the order wanted. */
  manifests: ChunkManifest[];
  /** Where ciphertext is kept (ChunkFiles). */
  dir: string;
  /** Called as bytes land: bytes held of all chunks, and their total. */
  onProgress?(done: number, total: number): void;
  connectTimeoutMs?: number;
  /** Largest request frame sent (default REQUEST_FRAME_MAX_BYTES, what every seller accepts); more chunks go in more connections. */
  maxRequestBytes?: number;
}

export interface DownloadResult {
  /** Complete, checked ciphertext files per chunkId. */
  files: Map<string, string>;
  /** Offsets this attempt resumed from (chunks started at 0 are not listed). */
  resumedFrom: Record<string, number>;
  bytesReceived: number;
}

const unsigned = (m: ChunkManifest) => {
  const { storageRef: _ref, ...rest } = m;
  return Buffer.from(canonicalBytes(rest));
};

function connectTo(host: string, port: number, timeoutMs: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new P2pError("DELIVERY_INCOMPLETE", `no connection to ${host}:${port} within ${timeoutMs} ms`));
    }, timeoutMs);
    socket.once("connect", () => {
      clearTimeout(timer);
      resolve(socket);
    });
    socket.once("error", (error) => {
      clearTimeout(timer);
      reject(new P2pError("DELIVERY_INCOMPLETE", `cannot connect to ${host}:${port}: ${error.message}`));
    });
  });
}

/**
 * Fetches every chunk not yet complete on disk: one connection per request, each request at most `maxRequestBytes`
 * (the seller refuses a longer one before reading it), so a long chunk list is asked for in several connections.
 */
export async function downloadChunks(options: DownloadOptions): Promise<DownloadResult> {
  const files = new ChunkFiles(options.dir);
  const result: DownloadResult = { files: new Map(), resumedFrom: {}, bytesReceived: 0 };
  const wanted = new Map<string, ChunkManifest>();
  const total = options.manifests.reduce((n, m) => n + m.encryptedSize, 0);
  const progress = { done: 0, total };
  for (const manifest of options.manifests) {
    if (await files.isComplete(manifest)) {
      result.files.set(manifest.chunkId, files.encPath(manifest.chunkId));
      progress.done += manifest.encryptedSize;
      continue;
    }
    const held = await files.heldBytes(manifest);
    if (held > 0) result.resumedFrom[manifest.chunkId] = held;
    progress.done += held;
    wanted.set(manifest.chunkId, manifest);
  }
  options.onProgress?.(progress.done, total);
  for (const batch of requestBatches(options, [...wanted.keys()], result.resumedFrom)) {
    await fetchBatch(options, files, new Map(batch.map((id) => [id, wanted.get(id)!])), result, progress);
  }
  return result;
}

/** The request's members besides its chunk list, as sent. */
const requestBase = (options: DownloadOptions, requestId: string): Omit<ChunkRequestFrame, "chunkIds" | "resumeOffsets"> => ({
  type: "chunk.request",
  protocol: P2P_PROTOCOL,
  encoding: P2P_ENCODING,
  requestId,
  purchaseId: options.purchaseId,
  deliverySessionId: options.deliverySessionId,
  buyerId: options.buyerId,
  handoff: options.handoff,
});

/**
 * Cuts the chunk list so each request's canonical JSON is at most `maxRequestBytes`: an ID costs its quoted length and
 * a comma in `chunkIds`, and as much again with its offset in `resumeOffsets` (IDs are ASCII, so nothing is escaped).
 */
function requestBatches(options: DownloadOptions, ids: string[], resume: Record<string, number>): string[][] {
  const limit = options.maxRequestBytes ?? REQUEST_FRAME_MAX_BYTES;
  const fixed = canonicalBytes({ ...requestBase(options, `req_${randomUUID()}`), chunkIds: [], resumeOffsets: {} }).length;
  const batches: string[][] = [];
  let batch: string[] = [];
  let size = fixed;
  for (const id of ids) {
    const cost = id.length + 3 + (resume[id] === undefined ? 0 : id.length + 4 + String(resume[id]).length);
    if (fixed + cost > limit) throw new P2pError("FRAME_TOO_LARGE", `a request for one chunk exceeds ${limit} bytes`);
    if (size + cost > limit) {
      batches.push(batch);
      batch = [];
      size = fixed;
    }
    batch.push(id);
    size += cost;
  }
  if (batch.length > 0) batches.push(batch);
  return batches;
}

/** One connection: asks for the chunks of `wanted` (resuming at the offsets held) and keeps each checked one. */
async function fetchBatch(options: DownloadOptions, files: ChunkFiles, wanted: Map<string, ChunkManifest>, result: DownloadResult, progress: { done: number; total: number }): Promise<void> {
  const requestId = `req_${randomUUID()}`;
  const resumeOffsets = Object.fromEntries([...wanted.keys()].filter((id) => result.resumedFrom[id] !== undefined).map((id) => [id, result.resumedFrom[id]]));
  const socket: Connection = options.connect
    ? await options.connect()
    : await connectTo(options.host ?? "127.0.0.1", options.port ?? 0, options.connectTimeoutMs ?? 10_000);
  socket.on("error", () => undefined);
  let writer: ChunkWriter | null = null;
  try {
    await writeFrame(socket, { ...requestBase(options, requestId), chunkIds: [...wanted.keys()], resumeOffsets });
    // Read with next(), not for-await: leaving a for-await over the socket would destroy it before the ack is sent.
    const frames = readFrames(socket, MAX_FRAME_BYTES);
    while (wanted.size > 0) {
      const next = await frames.next();
      if (next.done) break;
      const frame: Frame = next.value;
      if (frame.type === "delivery.error") throw new P2pError("DELIVERY_REFUSED", `${frame.code}: ${frame.message}`);
      if (frame.requestId !== requestId) throw new P2pError("FRAME_UNEXPECTED", "a frame of another request");
      if (frame.type === "chunk.manifest") {
        const expected = wanted.get(frame.chunkId);
        if (!expected || writer) throw new P2pError("FRAME_UNEXPECTED", `manifest of ${frame.chunkId} not expected now`);
        if (!unsigned(frame.manifest as unknown as ChunkManifest).equals(unsigned(expected))) {
          throw new P2pError("MANIFEST_MISMATCH", `the seller's manifest of ${frame.chunkId} is not the verified one`);
        }
        writer = await files.openPart(expected, result.resumedFrom[frame.chunkId] ?? 0);
      } else if (frame.type === "chunk.data") {
        if (!writer || frame.chunkId !== writer.manifest.chunkId) throw new P2pError("FRAME_UNEXPECTED", "data without its manifest");
        if (frame.offset !== writer.position) throw new P2pError("DATA_OUT_OF_ORDER", `data at ${frame.offset}, expected ${writer.position}`);
        const bytes = Buffer.from(frame.dataBase64, "base64");
        if (writer.position + bytes.length > writer.manifest.encryptedSize) throw new P2pError("DATA_OUT_OF_ORDER", "data beyond encryptedSize");
        await writer.write(bytes);
        result.bytesReceived += bytes.length;
        progress.done += bytes.length;
        options.onProgress?.(progress.done, progress.total);
      } else if (frame.type === "chunk.end") {
        if (!writer || frame.chunkId !== writer.manifest.chunkId) throw new P2pError("FRAME_UNEXPECTED", "end without its manifest");
        const current: ChunkWriter = writer;
        writer = null;
        if (frame.bytes !== current.manifest.encryptedSize) throw new P2pError("DATA_OUT_OF_ORDER", `end says ${frame.bytes} bytes, the manifest ${current.manifest.encryptedSize}`);
        result.files.set(frame.chunkId, await current.finish());
        wanted.delete(frame.chunkId);
      } else {
        throw new P2pError("FRAME_UNEXPECTED", `${frame.type} from the seller`);
      }
    }
    if (wanted.size > 0) throw new P2pError("DELIVERY_INCOMPLETE", `the connection ended with ${wanted.size} chunk(s) missing`);
    await writeFrame(socket, {
      type: "delivery.ack",
      requestId,
      deliverySessionId: options.deliverySessionId,
      purchaseId: options.purchaseId,
      buyerId: options.buyerId,
      transportId: options.transportId ?? "tcp",
      status: "received",
    });
    await closeGracefully(socket);
  } catch (error) {
    socket.destroy();
    // A cut connection surfaces from the decoder as FRAME_MALFORMED ("ended inside a frame") or a socket error.
    if (error instanceof P2pError && error.code === "FRAME_MALFORMED" && /ended inside a frame/.test(error.message)) {
      throw new P2pError("DELIVERY_INCOMPLETE", "the connection ended inside a frame");
    }
    if (!(error instanceof P2pError) && (error as NodeJS.ErrnoException).code?.startsWith("E")) {
      throw new P2pError("DELIVERY_INCOMPLETE", `the connection failed: ${(error as Error).message}`);
    }
    throw error;
  } finally {
    await (writer as ChunkWriter | null)?.suspend();
  }
}

/** Downloads, reconnecting after an interrupted connection (at most `attempts` connections), resuming at held offsets. */
export async function downloadWithResume(options: DownloadOptions, attempts = 5, onRetry?: (error: P2pError, attempt: number) => void): Promise<DownloadResult & { attempts: number; resumes: Array<Record<string, number>> }> {
  const resumes: Array<Record<string, number>> = [];
  for (let attempt = 1; ; attempt++) {
    try {
      const result = await downloadChunks(options);
      if (Object.keys(result.resumedFrom).length > 0) resumes.push(result.resumedFrom);
      return { ...result, attempts: attempt, resumes };
    } catch (error) {
      if (!(error instanceof P2pError) || error.code !== "DELIVERY_INCOMPLETE" || attempt >= attempts) throw error;
      onRetry?.(error, attempt);
    }
  }
}
