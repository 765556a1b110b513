/** Our sealed boxes against libsodium's crypto_box_seal: each opens the other's, and every alteration is refused. */
import sodium from "libsodium-wrappers";
import nacl from "tweetnacl";
import { beforeAll, describe, expect, it } from "vitest";
import { SEAL_OVERHEAD, openSealed, seal } from "../../../subgraphs/markets/stream/index.js";

beforeAll(async () => {
  await sodium.ready;
});

describe("sealed boxes (x25519-sealedbox)", () => {
  it("libsodium opens ours", () => {
    const recipient = sodium.crypto_box_keypair();
    for (const length of [0, 1, 32, 1000]) {
      const message = nacl.randomBytes(length);
      const sealed = seal(message, recipient.publicKey);
      expect(sealed.length).toBe(length + SEAL_OVERHEAD);
      expect(sodium.crypto_box_seal_open(sealed, recipient.publicKey, recipient.privateKey)).toEqual(message);
    }
  });

  it("we open libsodium's", () => {
    const recipient = nacl.box.keyPair();
    for (const length of [0, 1, 32, 1000]) {
      const message = nacl.randomBytes(length);
      const sealed = sodium.crypto_box_seal(message, recipient.publicKey);
      expect(openSealed(sealed, recipient.secretKey)).toEqual(message);
    }
  });

  it("is byte for byte libsodium's construction for the same ephemeral key", () => {
    const recipient = nacl.box.keyPair();
    const ephemeralSecret = nacl.randomBytes(32);
    const message = nacl.randomBytes(32);
    const ours = seal(message, recipient.publicKey, () => ephemeralSecret.slice());
    const epk = sodium.crypto_scalarmult_base(ephemeralSecret);
    const nonce = sodium.crypto_generichash(24, new Uint8Array([...epk, ...recipient.publicKey]), null);
    const theirs = new Uint8Array([...epk, ...sodium.crypto_box_easy(message, nonce, recipient.publicKey, ephemeralSecret)]);
    expect(ours).toEqual(theirs);
  });

  it("refuses another key, any flipped byte, a truncated box and a low-order ephemeral key", () => {
    const recipient = nacl.box.keyPair();
    const other = nacl.box.keyPair();
    const sealed = seal(nacl.randomBytes(32), recipient.publicKey);
    expect(openSealed(sealed, other.secretKey)).toBeNull();
    for (const at of [0, 31, 32, 47, 48, sealed.length - 1]) {
      const altered = sealed.slice();
      altered[at] ^= 1;
      expect(openSealed(altered, recipient.secretKey)).toBeNull();
    }
    expect(openSealed(sealed.subarray(0, SEAL_OVERHEAD - 1), recipient.secretKey)).toBeNull();
    const lowOrder = sealed.slice();
    lowOrder.fill(0, 0, 32);
    expect(openSealed(lowOrder, recipient.secretKey)).toBeNull();
    expect(() => sodium.crypto_box_seal_open(lowOrder, recipient.publicKey, recipient.secretKey)).toThrow();
  });
});
