/**
 * The seller's delivery server: plain TCP (node:net) carrying the frames of frames.ts (docs/stream-marketplace.md
 * "Peer-to-peer delivery" says why not libp2p). Per connection: one `chunk.request`, checked by `authorize` (the
 * connect handoff, the purchase, the buyer) before any byte is sent; then per requested chunk its `chunk.manifest`,
 * its ciphertext from the storage driver from the request's resume offset on, in `chunk.data` frames of at most
 * `dataFrameBytes` (streamed: never a whole chunk in memory, socket backpressure respected), and `chunk.end`; then
 * the buyer's `delivery.ack`, handed to `onAck`. Any refusal is one `delivery.error` frame, then the connection ends.
 */
import { createServer, type AddressInfo, type Server, type Socket } from "node:net";
import { driverFor, type ChunkStorageDriver } from "../storage/driver.js";
import type { ChunkManifest } from "../manifest.js";
import { readFrames } from "./decoder.js";
import { P2pError } from "./errors.js";
import { DEFAULT_DATA_FRAME_BYTES, type ChunkRequestFrame, type DeliveryAckFrame, type Frame } from "./frames.js";
import { closeGracefully, writeFrame } from "./wire.js";

/** What a checked request may receive. */
export interface DeliveryGrant {
  /** The delivery's chunks (at least those requested), each with where its ciphertext is. */
  chunks: Array<{ manifest: ChunkManifest; storageRef: string }>;
  transportId: string;
}

export interface DeliveryServerOptions {
  /** Checks the request's handoff (and purchase, session, buyer); throws P2pError HANDOFF_INVALID / HANDOFF_EXPIRED. */
  authorize(request: ChunkRequestFrame): Promise<DeliveryGrant>;
  storage: ChunkStorageDriver[];
  onAck?(ack: DeliveryAckFrame, request: ChunkRequestFrame): Promise<void> | void;
  /** Every request as received (a seller's log; tests see resume offsets here). */
  onRequest?(request: ChunkRequestFrame): void;
  /** Raw bytes per chunk.data frame (default 256 KiB). */
  dataFrameBytes?: number;
  /** Largest frame accepted from a buyer (a request naming 65,536 chunks is about 5 MB). */
  maxRequestBytes?: number;
  /** Idle limit per connection. */
  idleTimeoutMs?: number;
  log?(line: string, fields?: Record<string, unknown>): void;
}

export interface DeliveryServer {
  host: string;
  port: number;
  close(): Promise<void>;
}

export async function startDeliveryServer(options: DeliveryServerOptions, listen: { host?: string; port?: number } = {}): Promise<DeliveryServer> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
    socket.setTimeout(options.idleTimeoutMs ?? 60_000, () => socket.destroy());
    socket.on("error", () => undefined);
    void serveConnection(socket, options);
  });
  server.listen(listen.port ?? 0, listen.host ?? "127.0.0.1");
  await new Promise<void>((resolve, reject) => {
    server.once("listening", resolve);
    server.once("error", reject);
  });
  const address = server.address() as AddressInfo;
  return {
    host: address.address,
    port: address.port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

async function serveConnection(socket: Socket, options: DeliveryServerOptions): Promise<void> {
  const frames = readFrames(socket, options.maxRequestBytes ?? 8 * 1024 * 1024);
  let requestId = "unknown";
  try {
    const first = await frames.next();
    if (first.done) return void socket.destroy();
    if (first.value.type !== "chunk.request") throw new P2pError("FRAME_UNEXPECTED", `expected chunk.request, got ${first.value.type}`);
    const request = first.value;
    requestId = request.requestId;
    options.onRequest?.(request);
    const grant = await options.authorize(request);
    const plan = planDelivery(request, grant);
    for (const item of plan) await sendChunk(socket, request, item, options);
    const next = await frames.next();
    if (next.done) return void socket.destroy();
    const ack: Frame = next.value;
    if (ack.type !== "delivery.ack" || ack.requestId !== request.requestId || ack.buyerId !== request.buyerId) {
      throw new P2pError("FRAME_UNEXPECTED", "expected the delivery.ack of this request");
    }
    await options.onAck?.(ack, request);
    await closeGracefully(socket);
  } catch (error) {
    const known = error instanceof P2pError;
    if (!known) options.log?.("stream p2p delivery failed", { requestId, error: error instanceof Error ? error.message : String(error) });
    if (socket.destroyed || !socket.writable) return;
    const code = known ? error.code : "SELLER_INTERNAL";
    const message = known ? error.message.slice(code.length + 2, 2000) : "the seller could not complete the delivery";
    await writeFrame(socket, { type: "delivery.error", requestId: /^[A-Za-z0-9._:@/+=-]{1,200}$/.test(requestId) ? requestId : "unknown", code, message }).catch(() => undefined);
    await closeGracefully(socket);
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

async function sendChunk(socket: Socket, request: ChunkRequestFrame, item: PlannedChunk, options: DeliveryServerOptions): Promise<void> {
  const { manifest } = item;
  const base = { requestId: request.requestId, deliverySessionId: request.deliverySessionId, chunkId: manifest.chunkId };
  const { storageRef: _ref, ...shown } = manifest;
  await writeFrame(socket, { type: "chunk.manifest", ...base, manifest: shown as unknown as Record<string, unknown> });
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
      await writeFrame(socket, { type: "chunk.data", ...base, offset, dataBase64: data.toString("base64") });
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
  await writeFrame(socket, { type: "chunk.end", ...base, bytes: size });
}
