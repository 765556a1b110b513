/**
 * Chunk by chunk over async iterables, so a dataset of any size never sits in memory: at most one chunk of plaintext
 * being filled, one being encrypted and what the consumer holds.
 */
import { decryptChunk, encryptChunk, type ChunkContext, type EncryptedChunk } from "./chunk.js";
import type { ChunkManifest } from "./manifest.js";

/** The CLI default of the notes: 256 KiB of plaintext per chunk. */
export const DEFAULT_CHUNK_SIZE = 262_144;
export const MAX_CHUNK_SIZE = 32 * 1024 * 1024 - 1024;

/** Re-cuts a byte stream into chunks of exactly `size` bytes (the last one shorter, never empty). */
export async function* rechunk(source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>, size: number): AsyncGenerator<Uint8Array> {
  if (!Number.isSafeInteger(size) || size < 1 || size > MAX_CHUNK_SIZE) throw new RangeError(`chunk size must be 1..${MAX_CHUNK_SIZE}`);
  let buffer = new Uint8Array(size);
  let filled = 0;
  for await (const part of source) {
    let offset = 0;
    if (filled === 0) {
      // Whole chunks straight out of a large part, without copying into the buffer.
      while (part.length - offset >= size) {
        yield part.slice(offset, offset + size);
        offset += size;
      }
    }
    while (offset < part.length) {
      const take = Math.min(size - filled, part.length - offset);
      buffer.set(part.subarray(offset, offset + take), filled);
      filled += take;
      offset += take;
      if (filled === size) {
        yield buffer;
        buffer = new Uint8Array(size);
        filled = 0;
      }
    }
  }
  if (filled > 0) yield buffer.subarray(0, filled);
}

export interface EncryptStreamOptions extends ChunkContext {
  chunkSize?: number;
  /** Continues an existing chain: the next index and the last chunkId (defaults: 0 and null). */
  startIndex?: number;
  previousChunkId?: string | null;
}

/** Plaintext stream in, encrypted chunks (manifest + ciphertext) out, in chain order. */
export async function* encryptStream(
  source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
  options: EncryptStreamOptions,
): AsyncGenerator<EncryptedChunk> {
  let index = options.startIndex ?? 0;
  let previousChunkId = options.previousChunkId ?? null;
  const context: ChunkContext = { ...options };
  for await (const plaintext of rechunk(source, options.chunkSize ?? DEFAULT_CHUNK_SIZE)) {
    const chunk = encryptChunk(plaintext, { index, previousChunkId }, context);
    index += 1;
    previousChunkId = chunk.manifest.chunkId;
    yield chunk;
  }
}

export interface ChunkToDecrypt {
  /** A verified manifest (verify.ts). */
  manifest: ChunkManifest;
  ciphertext: Uint8Array;
}

/**
 * Encrypted chunks in, plaintext out; each chunk's hash, key commitment, tag and plaintext hash are checked
 * (decryptChunk) before its plaintext is yielded. `keyFor` hands over the chunk key (from openBuyerAccess); it is
 * wiped after use.
 */
export async function* decryptStream(
  chunks: AsyncIterable<ChunkToDecrypt> | Iterable<ChunkToDecrypt>,
  keyFor: (manifest: ChunkManifest) => Uint8Array | Promise<Uint8Array>,
): AsyncGenerator<Uint8Array> {
  let position = 0;
  for await (const { manifest, ciphertext } of chunks) {
    const key = await keyFor(manifest);
    try {
      yield decryptChunk(manifest, ciphertext, key, position);
    } finally {
      key.fill(0);
    }
    position += 1;
  }
}
