/**
 * Fresh random bytes from the CSPRNG, drawn 4 KiB at a time (as `crypto.randomUUID` does): one call into OpenSSL per
 * 4 KiB instead of one per ID or nonce. Every byte is handed out once; the answer is a view of the pool, to be read
 * at once (the caller encodes or hashes it), not kept.
 */
import { randomBytes } from "node:crypto";

const POOL_BYTES = 4096;
let pool = Buffer.alloc(0);
let at = 0;

/** `length` (at most 4,096) unused random bytes. */
export function pooledRandomBytes(length: number): Buffer {
  if (length > POOL_BYTES) throw new RangeError(`at most ${POOL_BYTES} pooled random bytes at a time`);
  if (at + length > pool.length) {
    pool = randomBytes(POOL_BYTES);
    at = 0;
  }
  const bytes = pool.subarray(at, at + length);
  at += length;
  return bytes;
}
