/**
 * The two binary routes of the stream marketplace (docs/stream-marketplace.md "Chunk data"): GraphQL cannot carry
 * bytes, so each route runs a GraphQL operation that authorises the request (the same service checks as any
 * route) and the shim itself streams the bytes to or from the storage driver the operation named.
 *
 * PUT /stream/chunks/:chunkId/data: `streamChunkUploadTarget` authorises the agent and names a fresh object key;
 * the body is streamed into the local driver there (never buffered whole; cut at the manifest's encryptedSize);
 * `commitStreamChunkData` re-reads it, checks size and SHA-256 against the manifest and records it. Any mismatch
 * deletes the object: nothing is stored.
 *
 * GET /stream/chunks/:chunkId/data: `streamChunkDownload` checks the bearer delivery token's scope; the object is
 * streamed with `Accept-Ranges: bytes`, one `Range: bytes=a-b | a- | -n` answered 206 with Content-Range, an
 * unsatisfiable one 416 with `Content-Range: bytes * /size` (no space), a malformed or multi-range header ignored
 * (200, RFC 9110 allows it), and `x-stream-chunk-id`, `x-stream-encrypted-data-hash` on every success.
 */
import type { IncomingMessage } from "node:http";
import path from "node:path";
import type { PlatformConfig } from "../subgraphs/shared/config.js";
import { StorageError, type ChunkStorageDriver } from "../subgraphs/markets/stream/storage/driver.js";
import { LocalChunkStorage, localStorageRoot } from "../subgraphs/markets/stream/storage/local.js";
import type { ShimOperation } from "./executor.js";
import type { RawRouteContext } from "./route-definition.js";

let driver: { root: string; storage: ChunkStorageDriver } | undefined;
/** The local driver over the same root the markets subgraph uses (<DATA_DIR>/stream-chunks). */
export function chunkStorage(config: Pick<PlatformConfig, "dataDir">): ChunkStorageDriver {
  const root = localStorageRoot(path.resolve(config.dataDir));
  if (driver?.root !== root) driver = { root, storage: new LocalChunkStorage(root) };
  return driver.storage;
}

export type ByteRangeRequest = { kind: "all" } | { kind: "range"; start: number; end: number } | { kind: "unsatisfiable" };

/** One `Range` header against an object of `size` bytes (RFC 9110 14.1.2). */
export function parseRange(header: string | undefined, size: number): ByteRangeRequest {
  if (header === undefined) return { kind: "all" };
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match || (match[1] === "" && match[2] === "")) return { kind: "all" };
  const [, first, last] = match;
  if (first === "") {
    const suffix = Number(last);
    if (!Number.isSafeInteger(suffix)) return { kind: "all" };
    if (suffix === 0 || size === 0) return { kind: "unsatisfiable" };
    return { kind: "range", start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(first);
  const end = last === "" ? Number.MAX_SAFE_INTEGER : Number(last);
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || end < start) return { kind: "all" };
  if (start >= size) return { kind: "unsatisfiable" };
  return { kind: "range", start, end: Math.min(end, size - 1) };
}

export async function serveChunkDownload(context: RawRouteContext): Promise<unknown> {
  const { reply, request, config } = context;
  const target = context.data.streamChunkDownload as { chunkId: string; storageRef: string; encryptedSize: number; encryptedDataHash: string };
  const size = target.encryptedSize;
  const range = parseRange(request.headers.range, size);
  const common = {
    "accept-ranges": "bytes",
    "cache-control": "no-store",
    "x-stream-chunk-id": target.chunkId,
    "x-stream-encrypted-data-hash": target.encryptedDataHash,
  };
  if (range.kind === "unsatisfiable") {
    reply.header("content-range", `bytes */${size}`).headers(common);
    return context.fail("RANGE_NOT_SATISFIABLE");
  }
  let read;
  try {
    read = await chunkStorage(config).get(target.storageRef, range.kind === "range" ? { start: range.start, end: range.end } : undefined);
  } catch (error) {
    if (error instanceof StorageError && error.code === "STORAGE_NOT_FOUND") return context.fail("CHUNK_NOT_STORED");
    throw error;
  }
  reply.headers({ ...common, "content-type": "application/octet-stream", "content-length": String(read.end - read.start + 1) });
  if (range.kind === "range") reply.code(206).header("content-range", `bytes ${read.start}-${read.end}/${read.size}`);
  else reply.code(200);
  return reply.send(read.body);
}

export function uploadServer(commit: ShimOperation) {
  return async function serveChunkUpload(context: RawRouteContext): Promise<unknown> {
    const { request, reply, variables, config } = context;
    const target = context.data.streamChunkUploadTarget as { bucket: string; key: string; encryptedSize: number; encryptedDataHash: string };
    const declared = request.headers["content-length"];
    if (declared !== undefined && Number(declared) !== target.encryptedSize) return context.fail("CIPHERTEXT_SIZE_MISMATCH");
    const storage = chunkStorage(config);
    let stored;
    try {
      stored = await storage.put(target.bucket, target.key, request.body as IncomingMessage, { maxBytes: target.encryptedSize });
    } catch (error) {
      if (error instanceof StorageError && error.code === "STORAGE_TOO_LARGE") return context.fail("CIPHERTEXT_SIZE_MISMATCH");
      throw error;
    }
    if (stored.size !== target.encryptedSize || stored.sha256 !== target.encryptedDataHash) {
      await storage.delete(stored.ref);
      return context.fail(stored.size !== target.encryptedSize ? "CIPHERTEXT_SIZE_MISMATCH" : "CIPHERTEXT_HASH_MISMATCH");
    }
    const result = await context.execute(commit, { ...variables, storageRef: stored.ref });
    if (result.errors?.length || !result.data) {
      await storage.delete(stored.ref);
      return context.failWith(result);
    }
    return reply.code(200).headers({ "content-type": "application/json; charset=utf-8", "cache-control": "no-store" })
      .send(Buffer.from(JSON.stringify({ item: result.data.commitStreamChunkData }), "utf8"));
  };
}
