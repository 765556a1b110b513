/**
 * Sealed boxes, byte-compatible with libsodium's `crypto_box_seal` / `crypto_box_seal_open`:
 *   sealed = epk || crypto_box(message, nonce, pk, esk)     (crypto_box = X25519 + HSalsa20 + XSalsa20-Poly1305)
 *   nonce  = BLAKE2b-192(epk || pk)
 * with a fresh ephemeral X25519 key pair (epk, esk) per box. X25519 and the box are tweetnacl's; BLAKE2b is
 * @noble/hashes'. test/markets/stream-sealed-box.test.ts opens ours with libsodium and libsodium's with ours.
 */
import { blake2b } from "@noble/hashes/blake2.js";
import { randomBytes } from "node:crypto";
import nacl from "tweetnacl";
import type { RandomSource } from "./encoding.js";

export const SEAL_OVERHEAD = 32 + 16;
const defaultRandom: RandomSource = (n) => new Uint8Array(randomBytes(n));

function sealNonce(epk: Uint8Array, pk: Uint8Array): Uint8Array {
  const input = new Uint8Array(64);
  input.set(epk, 0);
  input.set(pk, 32);
  return blake2b(input, { dkLen: 24 });
}

/** Seals `message` to the X25519 public key `pk` (32 bytes). */
export function seal(message: Uint8Array, pk: Uint8Array, random: RandomSource = defaultRandom): Uint8Array {
  if (pk.length !== 32) throw new RangeError("an X25519 public key has 32 bytes");
  const ephemeral = nacl.box.keyPair.fromSecretKey(random(32));
  const boxed = nacl.box(message, sealNonce(ephemeral.publicKey, pk), pk, ephemeral.secretKey);
  const out = new Uint8Array(32 + boxed.length);
  out.set(ephemeral.publicKey, 0);
  out.set(boxed, 32);
  ephemeral.secretKey.fill(0);
  return out;
}

/**
 * Opens a sealed box with the recipient's X25519 secret key (32 bytes); null when it was not sealed to that key, was
 * altered, or carries a low-order ephemeral key (libsodium refuses an all-zero shared secret; so do we).
 */
export function openSealed(sealed: Uint8Array, sk: Uint8Array): Uint8Array | null {
  if (sk.length !== 32 || sealed.length < SEAL_OVERHEAD) return null;
  const epk = sealed.subarray(0, 32);
  const shared = nacl.scalarMult(sk, epk);
  if (shared.every((b) => b === 0)) return null;
  const pk = nacl.box.keyPair.fromSecretKey(sk).publicKey;
  return nacl.box.open(sealed.subarray(32), sealNonce(epk, pk), epk, sk);
}
