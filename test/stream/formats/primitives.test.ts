/**
 * The OpenSSL-backed Ed25519 and X25519 of primitives.ts give tweetnacl's and libsodium's bytes: the same
 * deterministic signatures, verification both ways, the same public keys and shared secrets; bad keys are refused.
 */
import sodium from "libsodium-wrappers";
import nacl from "tweetnacl";
import { beforeAll, describe, expect, it } from "vitest";
import { boxKey, ed25519Sign, ed25519Verify, x25519, x25519KeyPair } from "../../../subgraphs/markets/stream/index.js";

beforeAll(async () => {
  await sodium.ready;
});

describe("stream primitives", () => {
  it("Ed25519: the same signatures as tweetnacl and libsodium, verified both ways", () => {
    for (let i = 0; i < 5; i++) {
      const pair = nacl.sign.keyPair();
      const message = nacl.randomBytes(i * 100);
      const ours = ed25519Sign(message, pair.secretKey);
      expect(ours).toEqual(nacl.sign.detached(message, pair.secretKey));
      expect(ours).toEqual(sodium.crypto_sign_detached(message, pair.secretKey));
      expect(ed25519Verify(message, ours, pair.publicKey)).toBe(true);
      const flipped = ours.slice();
      flipped[0] ^= 1;
      expect(ed25519Verify(message, flipped, pair.publicKey)).toBe(false);
      expect(nacl.sign.detached.verify(message, flipped, pair.publicKey)).toBe(false);
    }
  });

  it("Ed25519: refuses a wrong-length signature or key and a key that is not a curve point", () => {
    const pair = nacl.sign.keyPair();
    const signature = ed25519Sign(new Uint8Array(1), pair.secretKey);
    expect(ed25519Verify(new Uint8Array(1), signature.subarray(1), pair.publicKey)).toBe(false);
    expect(ed25519Verify(new Uint8Array(1), signature, pair.publicKey.subarray(1))).toBe(false);
    expect(ed25519Verify(new Uint8Array(1), signature, new Uint8Array(32).fill(0xff))).toBe(false);
    expect(() => ed25519Sign(new Uint8Array(1), pair.secretKey.subarray(0, 32))).toThrow(RangeError);
  });

  it("X25519: the same public keys and shared secrets as tweetnacl; the HSalsa20 box key as crypto_box_beforenm", () => {
    const a = nacl.box.keyPair();
    const b = nacl.box.keyPair();
    const ours = x25519KeyPair(a.secretKey);
    expect(ours.publicKey).toEqual(a.publicKey);
    expect(x25519(ours.privateKey, b.publicKey)).toEqual(nacl.scalarMult(a.secretKey, b.publicKey));
    expect(boxKey(x25519(ours.privateKey, b.publicKey)!)).toEqual(nacl.box.before(b.publicKey, a.secretKey));
    const fresh = x25519KeyPair();
    expect(fresh.publicKey).toHaveLength(32);
    expect(x25519(fresh.privateKey, a.publicKey)).toEqual(nacl.scalarMult(a.secretKey, fresh.publicKey));
  });

  it("a secret-key array refilled with another key is not answered from the cache", () => {
    const a = nacl.box.keyPair();
    const b = nacl.box.keyPair();
    const secret = a.secretKey.slice();
    expect(x25519KeyPair(secret).publicKey).toEqual(a.publicKey);
    secret.set(b.secretKey);
    expect(x25519KeyPair(secret).publicKey).toEqual(b.publicKey);
    const s1 = nacl.sign.keyPair();
    const s2 = nacl.sign.keyPair();
    const signing = s1.secretKey.slice();
    expect(ed25519Verify(new Uint8Array(1), ed25519Sign(new Uint8Array(1), signing), s1.publicKey)).toBe(true);
    signing.set(s2.secretKey);
    expect(ed25519Verify(new Uint8Array(1), ed25519Sign(new Uint8Array(1), signing), s2.publicKey)).toBe(true);
  });

  it("X25519: null for a low-order or malformed public key", () => {
    const ours = x25519KeyPair(nacl.box.keyPair().secretKey);
    expect(x25519(ours.privateKey, new Uint8Array(32))).toBeNull();
    const order8 = Uint8Array.from(Buffer.from("e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800", "hex"));
    expect(x25519(ours.privateKey, order8)).toBeNull();
    expect(x25519(ours.privateKey, new Uint8Array(31))).toBeNull();
  });
});
