/**
 * secp256k1 public-key recovery for the controller signature, behind one function.
 *
 * The evidence check recovers the signer of an EIP-191 digest and compares its address with the DID controller. In
 * JavaScript (@noble/curves) recovery takes about 3 ms, most of a whole check; libsecp256k1 through the `secp256k1`
 * package does it in tens of microseconds. The package ships prebuilt binaries (`prebuilds/linux-x64/*.node`, found
 * at run time by node-gyp-build), so it installs without a compiler and with its install script denied.
 *
 * The package's main entry silently falls back to `elliptic` (pure JS, slower still) when the binary does not load;
 * this module loads the native binding itself and falls back to @noble/curves instead, saying which one is in use
 * (`recoveryImplementation`). `test/verify/recover-agreement.test.ts` runs both on valid, malleated and invalid
 * signatures and requires the same answer from each.
 */
import { createRequire } from "node:module";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { bigIntToBytes } from "./encoding.js";
import { addressOfPublicKey } from "./format.js";

/** r, s and the recovery bit (v - 27) of a controller signature. */
export interface RecoverableSignature {
  r: bigint;
  s: bigint;
  recovery: 0 | 1;
}

/** Lowercase `0x` address of the key that signed `digest` (32 bytes), or null when no key can be recovered. */
export type RecoverAddress = (digest: Uint8Array, sig: RecoverableSignature) => string | null;

interface NativeSecp256k1 {
  ecdsaRecover(signature: Uint8Array, recid: number, message: Uint8Array, compressed: boolean): Uint8Array;
}

const SECP256K1_ORDER = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

const require = createRequire(import.meta.url);

function loadNative(): NativeSecp256k1 | null {
  try {
    // `secp256k1/bindings` is the native entry only (no elliptic fallback); it throws when no prebuilt binary fits.
    return require("secp256k1/bindings") as NativeSecp256k1;
  } catch {
    return null;
  }
}

const native = loadNative();

/** @noble/curves in JavaScript: the reference the native path is checked against, and the fallback. */
export const recoverAddressNoble: RecoverAddress = (digest, sig) => {
  try {
    if (digest.length !== 32) return null;
    const point = new secp256k1.Signature(sig.r, sig.s).addRecoveryBit(sig.recovery).recoverPublicKey(digest);
    return addressOfPublicKey(point.toBytes(false));
  } catch {
    return null;
  }
};

/** libsecp256k1 through the `secp256k1` package's prebuilt binding; null when the binding did not load. */
export const recoverAddressNative: RecoverAddress | null = native
  ? (digest, sig) => {
      // Out-of-range scalars cannot be written as 32 bytes faithfully; libsecp256k1 would also refuse them.
      if (digest.length !== 32) return null;
      if (sig.r <= 0n || sig.r >= SECP256K1_ORDER || sig.s <= 0n || sig.s >= SECP256K1_ORDER) return null;
      const compact = new Uint8Array(64);
      compact.set(bigIntToBytes(sig.r, 32));
      compact.set(bigIntToBytes(sig.s, 32), 32);
      try {
        return addressOfPublicKey(native.ecdsaRecover(compact, sig.recovery, digest, false));
      } catch {
        return null;
      }
    }
  : null;

/** Which implementation `recoverAddress` uses in this process. */
export const recoveryImplementation: "native libsecp256k1" | "@noble/curves" = recoverAddressNative
  ? "native libsecp256k1"
  : "@noble/curves";

/** The one recovery function the evidence check calls. */
export const recoverAddress: RecoverAddress = recoverAddressNative ?? recoverAddressNoble;
