/**
 * Where a chunk's encryption time goes (part of stream-formats.ts): CPU milliseconds per chunk of each step
 * encryptChunk takes, at 256 KiB and 1 MiB, in the same run: the XChaCha20-Poly1305 cipher (@noble/ciphers), the two
 * SHA-256 passes (plaintext, ciphertext), one sealed box (fresh X25519 key pair, agreement, HSalsa20, XSalsa20-Poly1305
 * of 32 bytes), the manifest signature (canonical JSON + Ed25519), and the whole encryptChunk. Medians of the rounds.
 */
import { randomBytes } from "node:crypto";
import nacl from "tweetnacl";
import { encryptChunk, seal, sealChunk, sha256Tag, signManifest, type ChunkContext } from "../../../subgraphs/markets/stream/index.js";
import { median } from "../stats.js";

const cpuMs = (work: () => void, times: number) => {
  const start = process.cpuUsage();
  for (let i = 0; i < times; i++) work();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000 / times;
};

export function benchChunkCosts(rounds: number): void {
  const signing = nacl.sign.keyPair();
  const box = nacl.box.keyPair();
  const context: ChunkContext = { signer: { machineDid: "did:peaq:0xbench", keyId: "bench", secretKey: signing.secretKey }, recipients: [{ recipientId: "m", recipientType: "machine", publicKey: box.publicKey }] };
  const key = new Uint8Array(randomBytes(32));
  const nonce = new Uint8Array(randomBytes(24));
  const sample = encryptChunk(new Uint8Array(1024), { index: 0, previousChunkId: null }, context).manifest;
  const { signature: _s, ...unsigned } = sample;
  for (const size of [262_144, 1_048_576]) {
    const plaintext = new Uint8Array(randomBytes(size));
    const ciphertext = sealChunk(key, nonce, plaintext);
    const times = Math.max(8, Math.round((64 * 262_144) / size));
    const steps: Array<[string, () => void]> = [
      ["cipher (XChaCha20-Poly1305)", () => sealChunk(key, nonce, plaintext)],
      ["SHA-256 x2 (plaintext, ciphertext)", () => { sha256Tag(plaintext); sha256Tag(ciphertext); }],
      ["sealed box, 1 recipient", () => seal(key, box.publicKey)],
      ["manifest signature (JCS + Ed25519)", () => signManifest(unsigned, context.signer)],
      ["whole encryptChunk", () => encryptChunk(plaintext, { index: 0, previousChunkId: null }, context)],
    ];
    const results = new Map<string, number[]>(steps.map(([name]) => [name, []]));
    for (const [, work] of steps) cpuMs(work, 4); // warm-up
    for (let round = 0; round < rounds; round++) for (const [name, work] of steps) results.get(name)!.push(cpuMs(work, times));
    const cipher = median(results.get(steps[0][0])!);
    console.log(`\nWhere a ${size / 1024} KiB chunk's encryption goes (CPU ms per chunk, medians of ${rounds} rounds; share of the whole)`);
    const whole = median(results.get("whole encryptChunk")!);
    for (const [name] of steps) {
      const ms = median(results.get(name)!);
      console.log(`  ${name.padEnd(36)} ${ms.toFixed(3).padStart(8)} ms  ${((100 * ms) / whole).toFixed(1).padStart(5)}%`);
    }
    console.log(`  cipher / whole = ${((100 * cipher) / whole).toFixed(1)}% (the share of the raw cipher's speed a publisher keeps)`);
  }
}
