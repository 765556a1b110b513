/**
 * The asymmetric primitives of the formats: Ed25519 (RFC 8032) signatures and X25519 (RFC 7748) agreement through
 * node:crypto (OpenSSL), the XSalsa20-Poly1305 box after HSalsa20 through tweetnacl. Keys keep tweetnacl's byte
 * formats (64-byte Ed25519 secret = seed || public key; 32-byte X25519 secret). Why not tweetnacl's own Ed25519 and
 * X25519: per chunk they cost several times the XChaCha20-Poly1305 of a 256 KiB chunk (measured by `npm run bench`);
 * OpenSSL's give the same bytes (deterministic signatures, same shared secrets: test/stream/formats/primitives.test.ts
 * compares both) at a small fraction of that.
 */
import { createPrivateKey, createPublicKey, diffieHellman, generateKeyPairSync, sign, timingSafeEqual, verify, type KeyObject } from "node:crypto";
import nacl from "tweetnacl";

const b64 = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64url");
const ZERO32 = b64(new Uint8Array(32));

/**
 * Imported secret keys, cached per array object so the caller's reuse of one key costs one import; each entry keeps a
 * copy of the bytes it was made from, so an array refilled with another key is imported afresh.
 */
const signingKeys = new WeakMap<Uint8Array, { bytes: Buffer; key: KeyObject }>();
const agreementKeys = new WeakMap<Uint8Array, { bytes: Buffer; privateKey: KeyObject; publicKey: Uint8Array }>();
const sameSecret = (bytes: Buffer, secret: Uint8Array) => bytes.length === secret.length && timingSafeEqual(bytes, secret);
/** Public keys by hex, bounded: recipients and signers repeat from chunk to chunk. */
const publicKeys = new Map<string, KeyObject>();

function publicKeyObject(crv: "Ed25519" | "X25519", publicKey: Uint8Array): KeyObject | null {
  const id = `${crv}:${Buffer.from(publicKey).toString("hex")}`;
  let key = publicKeys.get(id);
  if (!key) {
    try {
      key = createPublicKey({ key: { kty: "OKP", crv, x: b64(publicKey) }, format: "jwk" });
    } catch {
      return null;
    }
    if (publicKeys.size >= 256) publicKeys.delete(publicKeys.keys().next().value!);
    publicKeys.set(id, key);
  }
  return key;
}

export function ed25519Sign(message: Uint8Array, secretKey: Uint8Array): Uint8Array {
  if (secretKey.length !== 64) throw new RangeError("an Ed25519 secret key has 64 bytes (seed || public key)");
  let entry = signingKeys.get(secretKey);
  if (!entry || !sameSecret(entry.bytes, secretKey)) {
    const key = createPrivateKey({ key: { kty: "OKP", crv: "Ed25519", d: b64(secretKey.subarray(0, 32)), x: b64(secretKey.subarray(32)) }, format: "jwk" });
    entry = { bytes: Buffer.from(secretKey), key };
    signingKeys.set(secretKey, entry);
  }
  return new Uint8Array(sign(null, message, entry.key));
}

export function ed25519Verify(message: Uint8Array, signature: Uint8Array, publicKey: Uint8Array): boolean {
  if (signature.length !== 64 || publicKey.length !== 32) return false;
  const key = publicKeyObject("Ed25519", publicKey);
  try {
    return key !== null && verify(null, message, key, signature);
  } catch {
    return false;
  }
}

function importAgreementKey(secretKey: Uint8Array): { privateKey: KeyObject; publicKey: Uint8Array } {
  // OpenSSL derives the public key from the private one; the JWK `x` it wants is ignored on import.
  const privateKey = createPrivateKey({ key: { kty: "OKP", crv: "X25519", d: b64(secretKey), x: ZERO32 }, format: "jwk" });
  const publicKey = new Uint8Array(Buffer.from(createPublicKey(privateKey).export({ format: "jwk" }).x!, "base64url"));
  return { privateKey, publicKey };
}

/** An X25519 key pair from a 32-byte secret (cached per array), or a fresh one when none is given. */
export function x25519KeyPair(secretKey?: Uint8Array): { privateKey: KeyObject; publicKey: Uint8Array } {
  if (secretKey === undefined) {
    const pair = generateKeyPairSync("x25519");
    return { privateKey: pair.privateKey, publicKey: new Uint8Array(Buffer.from(pair.publicKey.export({ format: "jwk" }).x!, "base64url")) };
  }
  if (secretKey.length !== 32) throw new RangeError("an X25519 secret key has 32 bytes");
  let pair = agreementKeys.get(secretKey);
  if (!pair || !sameSecret(pair.bytes, secretKey)) {
    pair = { bytes: Buffer.from(secretKey), ...importAgreementKey(secretKey) };
    agreementKeys.set(secretKey, pair);
  }
  return { privateKey: pair.privateKey, publicKey: pair.publicKey };
}

/** X25519 shared secret; null for a malformed or low-order public key (an all-zero result, which OpenSSL refuses). */
export function x25519(privateKey: KeyObject, publicKey: Uint8Array): Uint8Array | null {
  const peer = publicKey.length === 32 ? publicKeyObject("X25519", publicKey) : null;
  if (!peer) return null;
  try {
    const shared = new Uint8Array(diffieHellman({ privateKey, publicKey: peer }));
    return shared.every((b) => b === 0) ? null : shared;
  } catch {
    return null;
  }
}

const SIGMA = new TextEncoder().encode("expand 32-byte k");
const lowlevel = (nacl as unknown as { lowlevel: { crypto_core_hsalsa20(out: Uint8Array, inp: Uint8Array, k: Uint8Array, c: Uint8Array): void } }).lowlevel;

/** crypto_box_beforenm's second half: HSalsa20(shared, 0^16), the XSalsa20-Poly1305 key of a box. */
export function boxKey(shared: Uint8Array): Uint8Array {
  const out = new Uint8Array(32);
  lowlevel.crypto_core_hsalsa20(out, new Uint8Array(16), shared, SIGMA);
  return out;
}

/** crypto_box_afternm / crypto_box_open_afternm (tweetnacl's secretbox: tag first). */
export const boxAfter = (message: Uint8Array, nonce: Uint8Array, key: Uint8Array) => nacl.secretbox(message, nonce, key);
export const openBoxAfter = (boxed: Uint8Array, nonce: Uint8Array, key: Uint8Array) => nacl.secretbox.open(boxed, nonce, key);
