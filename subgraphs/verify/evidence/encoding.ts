/**
 * Byte <-> text encodings used by the evidence format. Every decoder is strict: it accepts exactly one spelling per
 * byte string (lowercase hex, unpadded base64url with zero trailing bits), so two different evidence texts can never
 * carry the same bytes and the canonical-bytes rule stays meaningful inside string values too.
 */
import { hash } from "node:crypto";

const LOWER_HEX = /^0x(?:[0-9a-f]{2})*$/;
const BASE64URL = /^[A-Za-z0-9_-]*$/;

/** `0x` + lowercase hex. */
export function toHex(bytes: Uint8Array): string {
  return "0x" + Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("hex");
}

/** Decode `0x` + lowercase hex (even length); null for any other spelling. */
export function fromHex(text: string): Uint8Array | null {
  if (!LOWER_HEX.test(text)) return null;
  return new Uint8Array(Buffer.from(text.slice(2), "hex"));
}

/** Unpadded base64url (RFC 4648 section 5). */
export function toBase64url(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64url");
}

/**
 * Decode unpadded base64url; null for padding, foreign characters, an impossible length (n mod 4 == 1) or non-zero
 * trailing bits. The last rule matters: Node's decoder ignores trailing bits, so `...A` and `...B` could otherwise
 * decode to the same certificate.
 */
export function fromBase64url(text: string): Uint8Array | null {
  if (!BASE64URL.test(text) || text.length % 4 === 1) return null;
  const bytes = Buffer.from(text, "base64url");
  if (bytes.toString("base64url") !== text) return null;
  return new Uint8Array(bytes);
}

/**
 * SHA-256 of the parts one after the other. One-shot `crypto.hash`: a `createHash` object is a stream, whose set-up
 * cost more than hashing the few hundred bytes an evidence check hashes at a time.
 */
export function sha256(...parts: Uint8Array[]): Uint8Array {
  const digest = hash("sha256", parts.length === 1 ? parts[0]! : Buffer.concat(parts), "buffer");
  return new Uint8Array(digest.buffer, digest.byteOffset, digest.byteLength);
}

const encoder = new TextEncoder();
export function utf8(text: string): Uint8Array {
  return encoder.encode(text);
}

export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i] ^ b[i];
  return diff === 0;
}

export function bytesToBigInt(bytes: Uint8Array): bigint {
  return bytes.length === 0 ? 0n : BigInt(toHex(bytes));
}

/** Big-endian, left-padded to `length` bytes. */
export function bigIntToBytes(value: bigint, length: number): Uint8Array {
  return new Uint8Array(Buffer.from(value.toString(16).padStart(length * 2, "0"), "hex"));
}
