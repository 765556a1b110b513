/**
 * The seller's delivery server, the same over both transports: plain TCP (node:net, here) and libp2p streams
 * (libp2p.ts), each carrying the frames of frames.ts (docs/stream-marketplace.md "Peer-to-peer delivery"). Per connection: one `chunk.request`, checked by `authorize` (the
 * connect handoff, the purchase, the buyer) before any byte is sent; then per requested chunk its `chunk.manifest`,
 * its ciphertext from the storage driver from the request's resume offset on, in `chunk.data` frames of at most
 * `dataFrameBytes` (streamed: never a whole chunk in memory, socket backpressure respected), and `chunk.end`; then
 * the buyer's `delivery.ack`, handed to `onAck`. Any refusal is one `delivery.error` frame, then the connection ends.
 * Every phase is bounded (limits.ts): a connection cap, a small request read within a deadline from the connection's
 * start, progress while sending, a deadline for the ack.
 */
import { createServer, type AddressInfo, type Server } from "node:net";
import { driverFor, type ChunkStorageDriver } from "../storage/driver.js";
import type { ChunkManifest } from "../manifest.js";
import { P2pError } from "./errors.js";
import { DEFAULT_DATA_FRAME_BYTES, MAX_FRAME_BYTES, encodeFrame, type ChunkRequestFrame, type DeliveryAckFrame, type Frame } from "./frames.js";
import { DEFAULT_DELIVERY_LIMITS, PROGRESS_SLICE_BYTES, REFUSAL_GRACE_MS, withDeadline, type DeliveryLimits } from "./limits.js";
import { FrameReader } from "./reader.js";
import { closeGracefully, writeWithProgress, type Connection } from "./wire.js";

/** What a checked request may receive. */
export interface DeliveryGrant {
  /** The delivery's chunks (at least those requested), each with where its ciphertext is. */
  chunks: Array<{ manifest: ChunkManifest; storageRef: string }>;
  transportId: string;
}

/**
 * How a connection ended: `delivered` (the ack came), `closed` (the buyer went away first), `PROGRESS_TIMEOUT` (the
 * buyer stopped taking bytes; cut without a frame, since it is not reading), or the code of the `delivery.error` sent.
 */
export interface ConnectionReport {
  outcome: string;
  requestId: string | null;
  /** Bytes the seller read from the connection (what a buyer could make it hold is at most this). */
  bytesRead: number;
  bytesWritten: number;
  ms: number;
}

export interface DeliveryServerOptions {
  /** Checks the request's handoff (and purchase, session, buyer); throws P2pError HANDOFF_INVALID / HANDOFF_EXPIRED. */
  authorize(request: ChunkRequestFrame): Promise<DeliveryGrant>;
  storage: ChunkStorageDriver[];
  onAck?(ack: DeliveryAckFrame, request: ChunkRequestFrame): Promise<void> | void;
  /** Every request as received (a seller's log; tests see resume offsets here). */
  onRequest?(request: ChunkRequestFrame): void;
  /** Every connection once closed. */
  onClosed?(report: ConnectionReport): void;
  /** Raw bytes per chunk.data frame (default 256 KiB). */
  dataFrameBytes?: number;
  /** Bounds of every connection (limits.ts); each one not given takes its default. */
  limits?: Partial<DeliveryLimits>;
  log?(line: string, fields?: Record<string, unknown>): void;
}

export interface DeliveryServer {
  host: string;
  port: number;
  /** The bounds in force. */
  limits: DeliveryLimits;
  /** Connections being served (refused ones not counted). */
  readonly connections: number;
  close(): Promise<void>;
}

function checkLimits(limits: DeliveryLimits): DeliveryLimits {
  for (const [name, value] of Object.entries(limits)) {
    if (!Number.isSafeInteger(value) || value < 1) throw new RangeError(`delivery limit ${name} must be a positive integer`);
  }
  if (limits.maxRequestBytes > MAX_FRAME_BYTES) throw new RangeError(`maxRequestBytes is at most ${MAX_FRAME_BYTES}`);
  return limits;
}

/** Sends `delivery.error` without waiting on a buyer that may not read, then ends the connection (cut after a grace). */
function refuse(socket: Connection, requestId: string, code: string, message: string): void {
  socket.pause();
  if (socket.destroyed || !socket.writable) return;
  const id = /^[A-Za-z0-9._:@/+=-]{1,200}$/.test(requestId) ? requestId : "unknown";
  socket.write(encodeFrame({ type: "delivery.error", requestId: id, code, message: message.slice(0, 2000) }));
  void closeGracefully(socket, REFUSAL_GRACE_MS);
}

/** Serves the delivery on connections of any transport (a TCP socket, a libp2p stream), under one connection cap. */
export interface DeliveryHandler {
  limits: DeliveryLimits;
  readonly connections: number;
  /** Serves one new connection (or refuses it SELLER_BUSY at the cap, without reading a byte of it). */
  accept(socket: Connection): void;
  /** Cuts every open connection. */
  closeAll(): void;
}

export function createDeliveryHandler(options: DeliveryServerOptions): DeliveryHandler {
  const limits = checkLimits({ ...DEFAULT_DELIVERY_LIMITS, ...options.limits });
  const sockets = new Set<Connection>();
  let active = 0;
  return {
    limits,
    get connections() {
      return active;
    },
    accept(socket) {
      const started = Date.now();
      const state: Outcome = { outcome: "closed", requestId: null };
      sockets.add(socket);
      socket.on("error", () => undefined);
      socket.once("close", () => {
        sockets.delete(socket);
        options.onClosed?.({ ...state, bytesRead: socket.bytesRead, bytesWritten: socket.bytesWritten, ms: Date.now() - started });
      });
      if (active >= limits.maxConnections) {
        state.outcome = "SELLER_BUSY";
        return refuse(socket, "unknown", "SELLER_BUSY", `the seller serves at most ${limits.maxConnections} connections at once; try again later`);
      }
      active += 1;
      socket.once("close", () => void (active -= 1));
      void serveConnection(socket, options, limits, started, state);
    },
    closeAll() {
      for (const s of sockets) s.destroy();
    },
  };
}

/** The delivery server of transport `tcp` (node:net); `handler` is shared with another transport's server to share its cap. */
export async function startDeliveryServer(
  options: DeliveryServerOptions,
  listen: { host?: string; port?: number } = {},
  handler: DeliveryHandler = createDeliveryHandler(options),
): Promise<DeliveryServer> {
  // pauseOnConnect: nothing is read from a connection until its reader asks for a frame (a refused one is never read).
  const server: Server = createServer({ pauseOnConnect: true }, (socket) => handler.accept(socket));
  server.listen(listen.port ?? 0, listen.host ?? "127.0.0.1");
  await new Promise<void>((resolve, reject) => {
    server.once("listening", resolve);
    server.once("error", reject);
  });
  const address = server.address() as AddressInfo;
  return {
    host: address.address,
    port: address.port,
    limits: handler.limits,
    get connections() {
      return handler.connections;
    },
    close: () =>
      new Promise<void>((resolve) => {
        handler.closeAll();
        server.close(() => resolve());
      }),
  };
}

interface Outcome {
  outcome: string;
  requestId: string | null;
}

/** The buyer stopped taking bytes while data was sent. */
class Stalled extends Error {}

async function serveConnection(socket: Connection, options: DeliveryServerOptions, limits: DeliveryLimits, started: number, state: Outcome): Promise<void> {
  const reader = new FrameReader(socket, limits.maxRequestBytes);
  try {
    const remaining = limits.requestTimeoutMs - (Date.now() - started);
    const first = await withDeadline(reader.next(), remaining, () => new P2pError("REQUEST_TIMEOUT", `the request must arrive whole within ${limits.requestTimeoutMs} ms of connecting`));
    if (first === null) return void socket.destroy();
    if (first.type !== "chunk.request") throw new P2pError("FRAME_UNEXPECTED", `expected chunk.request, got ${first.type}`);
    const request = first;
    state.requestId = request.requestId;
    options.onRequest?.(request);
    const grant = await withDeadline(options.authorize(request), limits.authorizeTimeoutMs, () => new P2pError("SELLER_UNAVAILABLE", "the seller could not check the handoff in time; try again"));
    const plan = planDelivery(request, grant);
    const send = (frame: Frame) => writeWithProgress(socket, encodeFrame(frame), PROGRESS_SLICE_BYTES, limits.progressTimeoutMs, () => new Stalled());
    for (const item of plan) await sendChunk(send, request, item, options);
    const next = await withDeadline(reader.next(), limits.ackTimeoutMs, () => new P2pError("ACK_TIMEOUT", `the delivery.ack must arrive within ${limits.ackTimeoutMs} ms of the last chunk`));
    if (next === null) return void socket.destroy();
    const ack: Frame = next;
    if (ack.type !== "delivery.ack" || ack.requestId !== request.requestId || ack.buyerId !== request.buyerId) {
      throw new P2pError("FRAME_UNEXPECTED", "expected the delivery.ack of this request");
    }
    await options.onAck?.(ack, request);
    state.outcome = "delivered";
    await closeGracefully(socket);
  } catch (error) {
    reader.stop();
    if (error instanceof Stalled) {
      state.outcome = "PROGRESS_TIMEOUT";
      return void socket.destroy();
    }
    if (socket.destroyed || !socket.writable) return;
    const known = error instanceof P2pError;
    if (!known) options.log?.("stream p2p delivery failed", { requestId: state.requestId, error: error instanceof Error ? error.message : String(error) });
    const code = known ? error.code : "SELLER_INTERNAL";
    state.outcome = code;
    refuse(socket, state.requestId ?? "unknown", code, known ? error.message.slice(code.length + 2) : "the seller could not complete the delivery");
  }
}

interface PlannedChunk {
  manifest: ChunkManifest;
  storageRef: string;
  offset: number;
}

function planDelivery(request: ChunkRequestFrame, grant: DeliveryGrant): PlannedChunk[] {
  const byId = new Map(grant.chunks.map((c) => [c.manifest.chunkId, c]));
  return request.chunkIds.map((chunkId) => {
    const granted = byId.get(chunkId);
    if (!granted) throw new P2pError("CHUNK_NOT_BOUGHT", `${chunkId} is not part of this delivery`);
    const offset = request.resumeOffsets[chunkId] ?? 0;
    if (offset > granted.manifest.encryptedSize) {
      throw new P2pError("RESUME_OFFSET_INVALID", `offset ${offset} is beyond the ${granted.manifest.encryptedSize} bytes of ${chunkId}`);
    }
    return { ...granted, offset };
  });
}

async function sendChunk(send: (frame: Frame) => Promise<void>, request: ChunkRequestFrame, item: PlannedChunk, options: DeliveryServerOptions): Promise<void> {
  const { manifest } = item;
  const base = { requestId: request.requestId, deliverySessionId: request.deliverySessionId, chunkId: manifest.chunkId };
  const { storageRef: _ref, ...shown } = manifest;
  await send({ type: "chunk.manifest", ...base, manifest: shown as unknown as Record<string, unknown> });
  const size = manifest.encryptedSize;
  if (item.offset < size) {
    let read;
    try {
      read = await driverFor(item.storageRef, options.storage).get(item.storageRef, { start: item.offset, end: size - 1 });
    } catch (error) {
      throw new P2pError("CHUNK_UNAVAILABLE", `the ciphertext of ${manifest.chunkId} cannot be read (${(error as Error).message})`);
    }
    if (read.size !== size) throw new P2pError("CHUNK_UNAVAILABLE", `the stored ciphertext of ${manifest.chunkId} is not ${size} bytes`);
    const frameBytes = options.dataFrameBytes ?? DEFAULT_DATA_FRAME_BYTES;
    let offset = item.offset;
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    const flush = async () => {
      const data = pending.length === 1 ? pending[0] : Buffer.concat(pending, pendingBytes);
      await send({ type: "chunk.data", ...base, offset, dataBase64: data.toString("base64") });
      offset += data.length;
      pending = [];
      pendingBytes = 0;
    };
    for await (const part of read.body as AsyncIterable<Buffer>) {
      let rest = part;
      while (rest.length > 0) {
        const take = Math.min(rest.length, frameBytes - pendingBytes);
        pending.push(rest.subarray(0, take));
        pendingBytes += take;
        rest = rest.subarray(take);
        if (pendingBytes === frameBytes) await flush();
      }
    }
    if (pendingBytes > 0) await flush();
    if (offset !== size) throw new P2pError("CHUNK_UNAVAILABLE", `the stored ciphertext of ${manifest.chunkId} ended at ${offset} of ${size} bytes`);
  }
  await send({ type: "chunk.end", ...base, bytes: size });
}
