/**
 * Byte and text encodings of the stream formats: lowercase hex without `0x` for every binary field (`*Hex`, `nonce`,
 * signature values), `sha256:<64 hex>` for every hash, RFC 8785 canonical JSON (UTF-8) for everything signed or hashed.
 */
import { createHash } from "node:crypto";
import canonicalize from "canonicalize";

const HEX = /^(?:[0-9a-f]{2})*$/;
const HASH = /^sha256:[0-9a-f]{64}$/;

export function toHex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("hex");
}

/** Lowercase even-length hex of exactly `length` bytes (any length when omitted); null for any other spelling. */
export function fromHex(text: unknown, length?: number): Uint8Array | null {
  if (typeof text !== "string" || !HEX.test(text)) return null;
  if (length !== undefined && text.length !== 2 * length) return null;
  return new Uint8Array(Buffer.from(text, "hex"));
}

export const isHash = (text: unknown): text is string => typeof text === "string" && HASH.test(text);

/** `sha256:` + hex of SHA-256 over the parts, in order. */
export function sha256Tag(...parts: Uint8Array[]): string {
  const hash = createHash("sha256");
  for (const part of parts) hash.update(part);
  return `sha256:${hash.digest("hex")}`;
}

/** RFC 8785 bytes of a JSON value (UTF-8). */
export function canonicalBytes(value: unknown): Uint8Array {
  const text = canonicalize(value);
  if (text === undefined) throw new TypeError("value has no JSON form");
  return new TextEncoder().encode(text);
}

/** Constant-time equality of two byte strings of public length. */
export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i] ^ b[i];
  return diff === 0;
}

/** Where the formats take randomness (keys, nonces, ephemeral keys); test vectors pass a deterministic one. */
export type RandomSource = (length: number) => Uint8Array;
