/**
 * The controller signature's public-key recovery has two implementations behind one function
 * (subgraphs/verify/evidence/recover.ts): libsecp256k1 through the `secp256k1` package's prebuilt binding, and
 * @noble/curves in JavaScript. Both must give the same answer, address or null, for valid, malleated and invalid
 * signatures, and the evidence check must use the native one on the platform we support (Linux x64). The same for
 * Keccak-256 (evidence/keccak.ts): the `keccak` package's binding and @noble/hashes give the same bytes.
 */
import { randomBytes } from "node:crypto";
import { Wallet, hashMessage, recoverAddress as ethersRecover, Signature } from "ethers";
import { describe, expect, it } from "vitest";
import { bytesToBigInt, fromHex, toHex } from "../../subgraphs/verify/evidence/encoding.js";
import { decodeControllerSignature, eip191Digest } from "../../subgraphs/verify/evidence/format.js";
import {
  recoverAddress,
  recoverAddressNative,
  recoverAddressNoble,
  recoveryImplementation,
  type RecoverableSignature,
} from "../../subgraphs/verify/evidence/recover.js";
import { keccak256, keccak256Native, keccak256Noble, keccakImplementation } from "../../subgraphs/verify/evidence/keccak.js";

const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const P = 0xfffffffffffffffffffffffffffffffffffffffffffffffffffffffefffffc2fn;

const native = recoverAddressNative!;

/** Both implementations, the same answer; returns it. */
function agreed(digest: Uint8Array, sig: RecoverableSignature): string | null {
  const a = native(digest, sig);
  const b = recoverAddressNoble(digest, sig);
  expect(a, `r=${sig.r.toString(16)} s=${sig.s.toString(16)} v=${sig.recovery}`).toBe(b);
  return a;
}

/** 24 wallets, each signing a different EIP-191 message; r, s and the recovery bit as ethers produces them. */
function signedSamples(count = 24) {
  return Array.from({ length: count }, (_, i) => {
    const wallet = Wallet.createRandom();
    const message = `sample ${i} ${toHex(randomBytes(8))}`;
    const signature = Signature.from(wallet.signMessageSync(message));
    const sig: RecoverableSignature = { r: BigInt(signature.r), s: BigInt(signature.s), recovery: signature.yParity };
    return { wallet, message, digest: eip191Digest(message), sig, serialized: signature.serialized };
  });
}

describe("secp256k1 recovery: one function, two implementations", () => {
  it("the native binding loads here (prebuilt, no compiler) and the evidence check uses it", () => {
    expect(recoverAddressNative).not.toBeNull();
    expect(recoveryImplementation).toBe("native libsecp256k1");
    expect(recoverAddress).toBe(recoverAddressNative);
  });

  it("valid signatures: both recover the signer, as ethers does", () => {
    const samples = signedSamples();
    expect(new Set(samples.map((s) => s.sig.recovery))).toEqual(new Set([0, 1])); // both recovery bits covered
    for (const { wallet, message, digest, sig, serialized } of samples) {
      expect(toHex(digest)).toBe(hashMessage(message)); // our EIP-191 digest is personal_sign's
      expect(agreed(digest, sig)).toBe(wallet.address.toLowerCase());
      expect(ethersRecover(digest, serialized).toLowerCase()).toBe(wallet.address.toLowerCase());
      // The 65-byte form the evidence carries decodes to the same parts.
      expect(decodeControllerSignature(fromHex(serialized)!)).toEqual(sig);
    }
  });

  it("malleated signatures: (r, n - s) with the other recovery bit recovers the same key in both; the check refuses it earlier", () => {
    for (const { wallet, digest, sig, serialized } of signedSamples(12)) {
      const highS = { r: sig.r, s: N - sig.s, recovery: (1 - sig.recovery) as 0 | 1 };
      expect(highS.s > N / 2n).toBe(true);
      expect(agreed(digest, highS)).toBe(wallet.address.toLowerCase());
      // Same high s with the original bit: a different key (or none), still the same in both.
      expect(agreed(digest, { ...highS, recovery: sig.recovery })).not.toBe(wallet.address.toLowerCase());
      // decodeControllerSignature rejects the high-s spelling before recovery runs.
      const bytes = fromHex(serialized)!;
      bytes.set(fromHex(`0x${highS.s.toString(16).padStart(64, "0")}`)!, 32);
      bytes[64] = 27 + highS.recovery;
      expect(decodeControllerSignature(bytes)).toBeNull();
    }
  });

  it("wrong recovery bit or another digest: both recover some other key, the same one", () => {
    for (const { wallet, digest, sig } of signedSamples(12)) {
      const flipped = agreed(digest, { ...sig, recovery: (1 - sig.recovery) as 0 | 1 });
      expect(flipped).not.toBe(wallet.address.toLowerCase());
      const other = digest.slice();
      other[0] ^= 1;
      const recovered = agreed(other, sig);
      expect(recovered).not.toBeNull();
      expect(recovered).not.toBe(wallet.address.toLowerCase());
    }
  });

  it("invalid signatures: out-of-range scalars, x not on the curve, a digest of the wrong length: null in both", () => {
    const { digest, sig } = signedSamples(1)[0]!;
    const outOfRange: RecoverableSignature[] = [
      { ...sig, r: 0n },
      { ...sig, s: 0n },
      { ...sig, r: N },
      { ...sig, s: N },
      { ...sig, r: N + 1n },
      { ...sig, r: P - 1n },
      { ...sig, s: (1n << 256n) - 1n },
    ];
    for (const bad of outOfRange) expect(agreed(digest, bad)).toBeNull();
    expect(native(digest.subarray(0, 31), sig)).toBeNull();
    expect(recoverAddressNoble(digest.subarray(0, 31), sig)).toBeNull();
    expect(native(new Uint8Array(33), sig)).toBeNull();
    expect(recoverAddressNoble(new Uint8Array(33), sig)).toBeNull();
  });

  it("random r values: about half have no curve point with that x; both agree on every one", () => {
    let none = 0;
    let some = 0;
    for (let i = 0; i < 200; i++) {
      const digest = new Uint8Array(randomBytes(32));
      const sig: RecoverableSignature = {
        r: (bytesToBigInt(new Uint8Array(randomBytes(32))) % (N - 1n)) + 1n,
        s: (bytesToBigInt(new Uint8Array(randomBytes(32))) % (N - 1n)) + 1n,
        recovery: (i % 2) as 0 | 1,
      };
      if (agreed(digest, sig) === null) none++;
      else some++;
    }
    // Both outcomes occur, so the agreement above covered the invalid-point path and the valid one.
    expect(none).toBeGreaterThan(40);
    expect(some).toBeGreaterThan(40);
  });
});

describe("Keccak-256: one function, two implementations", () => {
  it("the native binding loads here and the evidence format uses it", () => {
    expect(keccak256Native).not.toBeNull();
    expect(keccakImplementation).toBe("native keccak");
    expect(keccak256).toBe(keccak256Native);
  });

  it("known answers: empty input and personal_sign's digest", () => {
    expect(toHex(keccak256Native!(new Uint8Array(0)))).toBe("0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470");
    expect(toHex(eip191Digest("hello"))).toBe(hashMessage("hello"));
  });

  it("every length around the 136-byte block boundaries, and views into larger buffers, hash alike in both", () => {
    const source = new Uint8Array(randomBytes(1200));
    for (const length of [0, 1, 31, 32, 64, 135, 136, 137, 271, 272, 273, 1100, 1199]) {
      for (const offset of [0, 1]) {
        const view = source.subarray(offset, offset + length);
        const expected = toHex(keccak256Noble(view));
        expect(toHex(keccak256Native!(view)), `length ${length} offset ${offset}`).toBe(expected);
      }
    }
  });
});
