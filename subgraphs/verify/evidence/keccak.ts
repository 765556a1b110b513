/**
 * Keccak-256 (Ethereum's, padding 0x01; not SHA3-256, which Node's OpenSSL 3.0 has) for the EIP-191 digest and the
 * address of a recovered key. The controller message is about 1.1 KB, nine Keccak blocks: @noble/hashes takes about
 * 85 us for it, a quarter of a whole evidence check once recovery is native; the `keccak` package's prebuilt
 * binding (`prebuilds/linux-x64/*.node`, no compiler, install script denied) takes about 25 us.
 *
 * Like recover.ts, this loads the package's native entry `keccak/bindings` itself (its main entry would fall back to
 * a slower JS sponge) and falls back to @noble/hashes; `test/verify/recover-agreement.test.ts` checks that both give
 * the same bytes.
 */
import { createRequire } from "node:module";
import { keccak_256 } from "@noble/hashes/sha3.js";

export type Keccak256 = (data: Uint8Array) => Uint8Array;

interface NativeKeccakHash {
  update(data: Buffer): NativeKeccakHash;
  digest(): Buffer;
}

const require = createRequire(import.meta.url);

function loadNative(): ((algorithm: "keccak256") => NativeKeccakHash) | null {
  try {
    return require("keccak/bindings") as (algorithm: "keccak256") => NativeKeccakHash;
  } catch {
    return null;
  }
}

const native = loadNative();

export const keccak256Noble: Keccak256 = (data) => keccak_256(data);

export const keccak256Native: Keccak256 | null = native
  ? (data) => {
      const digest = native("keccak256")
        .update(Buffer.from(data.buffer, data.byteOffset, data.byteLength))
        .digest();
      return new Uint8Array(digest.buffer, digest.byteOffset, digest.byteLength);
    }
  : null;

export const keccakImplementation: "native keccak" | "@noble/hashes" = keccak256Native ? "native keccak" : "@noble/hashes";

/** The one Keccak-256 the evidence format uses. */
export const keccak256: Keccak256 = keccak256Native ?? keccak256Noble;
