/**
 * XChaCha20-Poly1305 (draft-irtf-cfrg-xchacha) on OpenSSL's ChaCha20-Poly1305: HChaCha20 of the key and the first 16
 * nonce bytes gives the subkey (@noble/ciphers' `hchacha`, one block), then the IETF AEAD (RFC 8439) runs natively
 * under that subkey with the nonce `0x00000000 || nonce[16..24]`. The bytes are the construction's own, identical to
 * @noble/ciphers' `xchacha20poly1305` (test/stream/formats/xchacha.test.ts compares both); OpenSSL's vectorised cipher runs
 * many times faster than the JavaScript one, which bounded a publisher's throughput.
 *
 * Output is `ciphertext || 16-byte tag` in one buffer, the layout the chunk format stores and hashes.
 */
import { createCipheriv, createDecipheriv } from "node:crypto";
import { hchacha } from "@noble/ciphers/chacha.js";

const TAG = 16;
/** Bytes per cipher call: large enough to amortise the call, small enough to stay out of fresh memory mappings. */
const PIECE = 64 * 1024;
/** "expand 32-byte k" as four little-endian words. */
const SIGMA = new Uint32Array([0x61707865, 0x3320646e, 0x79622d32, 0x6b206574]);
const littleEndian = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

function subkeyAndNonce(key: Uint8Array, nonce: Uint8Array): { subkey: Buffer; iv: Buffer } {
  if (key.length !== 32) throw new RangeError("XChaCha20-Poly1305 needs a 32-byte key");
  if (nonce.length !== 24) throw new RangeError("XChaCha20-Poly1305 needs a 24-byte nonce");
  if (!littleEndian) throw new Error("the native XChaCha20-Poly1305 path reads words little-endian");
  const words = new Uint32Array(8 + 4 + 8);
  const bytes = new Uint8Array(words.buffer);
  bytes.set(key, 0);
  bytes.set(nonce.subarray(0, 16), 32);
  hchacha(SIGMA, words.subarray(0, 8), words.subarray(8, 12), words.subarray(12, 20));
  const subkey = Buffer.from(bytes.subarray(48, 80));
  const iv = Buffer.alloc(12);
  iv.set(nonce.subarray(16, 24), 4);
  bytes.fill(0);
  return { subkey, iv };
}

/** Encrypt with an empty AAD: `ciphertext || tag`. */
export function xchachaSeal(key: Uint8Array, nonce: Uint8Array, plaintext: Uint8Array): Uint8Array {
  const { subkey, iv } = subkeyAndNonce(key, nonce);
  const cipher = createCipheriv("chacha20-poly1305", subkey, iv, { authTagLength: TAG });
  subkey.fill(0);
  // One output buffer: the cipher runs over pieces whose outputs are small (reused by the allocator rather than
  // mapped and faulted in afresh, as one multi-MiB intermediate was) and copied straight into place.
  const out = new Uint8Array(plaintext.length + TAG);
  let at = 0;
  for (let offset = 0; offset < plaintext.length; offset += PIECE) {
    const piece = cipher.update(plaintext.subarray(offset, Math.min(plaintext.length, offset + PIECE)));
    out.set(piece, at);
    at += piece.length;
  }
  const rest = cipher.final();
  out.set(rest, at);
  out.set(cipher.getAuthTag(), at + rest.length);
  return out;
}

/** Decrypt `ciphertext || tag` with an empty AAD; throws when the tag does not match or the input is too short. */
export function xchachaOpen(key: Uint8Array, nonce: Uint8Array, sealed: Uint8Array): Uint8Array {
  if (sealed.length < TAG) throw new RangeError("sealed input is shorter than its tag");
  const { subkey, iv } = subkeyAndNonce(key, nonce);
  const decipher = createDecipheriv("chacha20-poly1305", subkey, iv, { authTagLength: TAG });
  subkey.fill(0);
  decipher.setAuthTag(sealed.subarray(sealed.length - TAG));
  const length = sealed.length - TAG;
  const out = new Uint8Array(length);
  let at = 0;
  for (let offset = 0; offset < length; offset += PIECE) {
    const piece = decipher.update(sealed.subarray(offset, Math.min(length, offset + PIECE)));
    out.set(piece, at);
    at += piece.length;
  }
  try {
    out.set(decipher.final(), at); // throws on a tag mismatch, before the plaintext is returned
  } catch (error) {
    out.fill(0);
    throw error;
  }
  return out;
}
