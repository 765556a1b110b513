/**
 * The native XChaCha20-Poly1305 (subgraphs/markets/stream/xchacha.ts) against @noble/ciphers' implementation and
 * libsodium's: the same bytes for every length around the block and tag boundaries and for multi-MiB chunks, and a
 * refusal (no plaintext) for a flipped bit, a wrong key, a wrong nonce and a short input.
 */
import { describe, expect, it } from "vitest";
import { randomBytes } from "node:crypto";
import { xchacha20poly1305 } from "@noble/ciphers/chacha.js";
import sodium from "libsodium-wrappers";
import { xchachaOpen, xchachaSeal } from "../../../subgraphs/markets/stream/xchacha.js";

const bytes = (n: number) => new Uint8Array(randomBytes(n));

describe("native XChaCha20-Poly1305", () => {
  it("seals to the bytes @noble/ciphers and libsodium produce and opens theirs", async () => {
    await sodium.ready;
    for (const length of [0, 1, 15, 16, 17, 63, 64, 65, 127, 128, 1000, 65_537, 262_144, 1_048_576 + 7]) {
      const key = bytes(32);
      const nonce = bytes(24);
      const plaintext = bytes(length);
      const sealed = xchachaSeal(key, nonce, plaintext);
      expect(sealed.length).toBe(length + 16);
      expect(Buffer.from(sealed).equals(Buffer.from(xchacha20poly1305(key, nonce).encrypt(plaintext)))).toBe(true);
      if (length <= 65_537) {
        expect(sealed).toEqual(sodium.crypto_aead_xchacha20poly1305_ietf_encrypt(plaintext, null, null, nonce, key));
      }
      expect(Buffer.from(xchachaOpen(key, nonce, sealed)).equals(Buffer.from(plaintext))).toBe(true);
    }
  });

  it("seals from unaligned views of larger buffers", () => {
    const backing = bytes(32 + 24 + 100 + 3);
    const key = backing.subarray(1, 33);
    const nonce = backing.subarray(33, 57);
    const plaintext = backing.subarray(57, 157);
    expect(xchachaSeal(key, nonce, plaintext)).toEqual(xchacha20poly1305(key.slice(), nonce.slice()).encrypt(plaintext.slice()));
  });

  it("refuses tampered bytes, another key or nonce and a short input", () => {
    const key = bytes(32);
    const nonce = bytes(24);
    const sealed = xchachaSeal(key, nonce, bytes(300));
    for (const at of [0, 150, 299, 300, 315]) {
      const flipped = sealed.slice();
      flipped[at]! ^= 1;
      expect(() => xchachaOpen(key, nonce, flipped)).toThrow();
    }
    expect(() => xchachaOpen(bytes(32), nonce, sealed)).toThrow();
    expect(() => xchachaOpen(key, bytes(24), sealed)).toThrow();
    expect(() => xchachaOpen(key, nonce, sealed.subarray(0, 15))).toThrow(RangeError);
    expect(() => xchachaSeal(bytes(31), nonce, bytes(1))).toThrow(RangeError);
    expect(() => xchachaSeal(key, bytes(12), bytes(1))).toThrow(RangeError);
  });
});
