/**
 * Sealed boxes, byte-compatible with libsodium's `crypto_box_seal` / `crypto_box_seal_open`:
 *   sealed = epk || crypto_box(message, nonce, pk, esk)     (crypto_box = X25519, HSalsa20, XSalsa20-Poly1305)
 *   nonce  = BLAKE2b-192(epk || pk)
 * with a fresh ephemeral X25519 key pair (epk, esk) per box (primitives.ts; BLAKE2b from @noble/hashes).
 * test/stream/formats/sealed-box.test.ts opens ours with libsodium and libsodium's with ours.
 */
import { blake2b } from "@noble/hashes/blake2.js";
import type { RandomSource } from "./encoding.js";
import { boxAfter, boxKey, openBoxAfter, x25519, x25519KeyPair } from "./primitives.js";

export const SEAL_OVERHEAD = 32 + 16;

function sealNonce(epk: Uint8Array, pk: Uint8Array): Uint8Array {
  const input = new Uint8Array(64);
  input.set(epk, 0);
  input.set(pk, 32);
  return blake2b(input, { dkLen: 24 });
}

/**
 * Seals `message` to the X25519 public key `pk` (32 bytes). The ephemeral secret comes from `random` when given
 * (test vectors), else from OpenSSL's key generation.
 */
export function seal(message: Uint8Array, pk: Uint8Array, random?: RandomSource): Uint8Array {
  if (pk.length !== 32) throw new RangeError("an X25519 public key has 32 bytes");
  const ephemeral = x25519KeyPair(random ? random(32) : undefined);
  const shared = x25519(ephemeral.privateKey, pk);
  if (!shared) throw new RangeError("not a usable X25519 public key");
  const key = boxKey(shared);
  const boxed = boxAfter(message, sealNonce(ephemeral.publicKey, pk), key);
  shared.fill(0);
  key.fill(0);
  const out = new Uint8Array(32 + boxed.length);
  out.set(ephemeral.publicKey, 0);
  out.set(boxed, 32);
  return out;
}

/**
 * Opens a sealed box with the recipient's X25519 secret key (32 bytes); null when it was not sealed to that key, was
 * altered, or carries a low-order ephemeral key (libsodium refuses an all-zero shared secret; so do we).
 */
export function openSealed(sealed: Uint8Array, sk: Uint8Array): Uint8Array | null {
  if (sk.length !== 32 || sealed.length < SEAL_OVERHEAD) return null;
  const epk = sealed.slice(0, 32);
  const recipient = x25519KeyPair(sk);
  const shared = x25519(recipient.privateKey, epk);
  if (!shared) return null;
  const key = boxKey(shared);
  const message = openBoxAfter(sealed.subarray(32), sealNonce(epk, recipient.publicKey), key);
  shared.fill(0);
  key.fill(0);
  return message;
}

/** The X25519 public key of a 32-byte secret key. */
export const x25519PublicKey = (sk: Uint8Array): Uint8Array => x25519KeyPair(sk).publicKey;
