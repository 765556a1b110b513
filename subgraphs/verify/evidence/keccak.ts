/**
 * Keccak-256 (Ethereum's, padding 0x01; not SHA3-256, which Node's OpenSSL 3.0 has) for the EIP-191 digest and the
 * address of a recovered key. The controller message is about 1.1 KB, nine Keccak blocks: @noble/hashes takes about
 * 60 to 85 us for it, a quarter of a whole evidence check once recovery is native; the `keccak` package's prebuilt
 * binding (`prebuilds/linux-x64/*.node`, no compiler, install script denied) about 11 us (25 us through the package's
 * stream wrapper, below).
 *
 * Like recover.ts, this loads the package's native addon itself (its main entry would fall back to a slower JS sponge)
 * and falls back to @noble/hashes; `test/verify/recover-agreement.test.ts` checks that both give the same bytes. The
 * addon's sponge state is used directly: the package wraps each hash in a stream object (`readable-stream`'s
 * Transform) whose construction cost more than the nine blocks of the controller message.
 */
import { createRequire } from "node:module";
import path from "node:path";
import { keccak_256 } from "@noble/hashes/sha3.js";

export type Keccak256 = (data: Uint8Array) => Uint8Array;

/** The addon's Keccak-f[1600] sponge (`keccak/src/addon.cc`); squeezing pads with Keccak's 0x01 suffix. */
interface KeccakSponge {
  initialize(rate: number, capacity: number): void;
  absorb(data: Buffer): void;
  squeeze(length: number): Buffer;
}

const require = createRequire(import.meta.url);

/** The addon as `keccak/bindings` loads it: node-gyp-build from the package's own folder finds its prebuilt binary. */
function loadNative(): (new () => KeccakSponge) | null {
  try {
    const entry = require.resolve("keccak/bindings");
    const addon = createRequire(entry)("node-gyp-build")(path.dirname(entry)) as unknown;
    return typeof addon === "function" ? (addon as new () => KeccakSponge) : null;
  } catch {
    return null;
  }
}

const Sponge = loadNative();

export const keccak256Noble: Keccak256 = (data) => keccak_256(data);

export const keccak256Native: Keccak256 | null = Sponge
  ? (data) => {
      const sponge = new Sponge();
      sponge.initialize(1088, 512); // Keccak-256: rate 1088 bits, capacity 512
      sponge.absorb(Buffer.from(data.buffer, data.byteOffset, data.byteLength));
      const digest = sponge.squeeze(32);
      return new Uint8Array(digest.buffer, digest.byteOffset, digest.byteLength);
    }
  : null;

export const keccakImplementation: "native keccak" | "@noble/hashes" = keccak256Native ? "native keccak" : "@noble/hashes";

/** The one Keccak-256 the evidence format uses. */
export const keccak256: Keccak256 = keccak256Native ?? keccak256Noble;
