/**
 * Document 3, stream formats (docs/stream-formats.md): chunk encryption and decryption throughput beside the raw
 * XChaCha20-Poly1305 cipher in the same run (target: at least 80% of it), and the peak memory of encrypting a large
 * stream generated on the fly (stream-rss.ts, in a process of its own), which must stay flat as the stream grows.
 *
 * Cases, all on one core, measured in CPU time of this process, taking turns slice by slice, medians of the rounds:
 * - raw cipher: `sealChunk` (OpenSSL's ChaCha20-Poly1305 under the HChaCha20 subkey) over the same chunks (the
 *   baseline), and beside it the JavaScript cipher of @noble/ciphers the formats used before, for scale;
 * - symmetric part of a chunk: cipher, plaintext and ciphertext SHA-256, chunkId;
 * - full chunk encryption (`encryptStream`): the above plus a fresh key and nonce, the key sealed to each recipient
 *   and the Ed25519 manifest signature (tweetnacl), at the default 256 KiB chunks and at larger ones;
 * - decryption (`decryptChunk`: ciphertext hash, key commitment, AEAD, plaintext hash) vs the raw decryption, and
 *   with the key unwrapped from a buyer-access entry per chunk.
 */
import { xchacha20poly1305 } from "@noble/ciphers/chacha.js";
import { xchachaOpen } from "../../../subgraphs/markets/stream/xchacha.js";
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import os from "node:os";
import nacl from "tweetnacl";
import {
  computeChunkId, createBuyerAccess, decryptChunk, encryptStream, openBuyerAccess, sealChunk, sha256Tag,
  type ChunkRecipient, type EncryptedChunk, type ManifestSigner,
} from "../../../subgraphs/markets/stream/index.js";
import { median } from "../stats.js";
import { benchChunkCosts } from "./stream-costs.js";

const MB = 1024 * 1024;
const ROUND_BYTES = Math.max(1, Math.round(Number(process.env.BENCH_STREAM_ROUND_MB ?? 32) / 4)) * 4 * MB;
const RSS_MB = Number(process.env.BENCH_STREAM_RSS_MB ?? 256);
/** Bytes each case handles per turn (a multiple of the largest chunk size, 4 MiB). */
const SLICE = 4 * MB;

function source(pool: Uint8Array, total: number): Uint8Array[] {
  const parts: Uint8Array[] = [];
  for (let offset = 0; offset < total; offset += pool.length) parts.push(pool.subarray(0, Math.min(pool.length, total - offset)));
  return parts;
}

const mbps = (bytes: number, ms: number) => bytes / MB / (ms / 1000);
/**
 * Milliseconds of CPU time (user + system) the work costs this process: unlike elapsed time it does not count the
 * slices other processes get on a shared machine, so the same-run ratios hold under load.
 */
async function timed(work: () => Promise<void> | void): Promise<number> {
  const start = process.cpuUsage();
  await work();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

export async function benchStreamFormats(rounds: number): Promise<void> {
  const signing = nacl.sign.keyPair();
  const signer: ManifestSigner = { machineDid: "did:peaq:0xbench", keyId: "bench", secretKey: signing.secretKey };
  const machine = nacl.box.keyPair();
  const owner = nacl.box.keyPair();
  const buyer = nacl.box.keyPair();
  const one: ChunkRecipient[] = [{ recipientId: "machine", recipientType: "machine", publicKey: machine.publicKey }];
  const two: ChunkRecipient[] = [...one, { recipientId: "owner", recipientType: "owner", publicKey: owner.publicKey }];
  const pool = new Uint8Array(randomBytes(4 * MB));
  const key = new Uint8Array(randomBytes(32));
  const nonce = new Uint8Array(randomBytes(24));
  const sizes = [262_144, MB, 4 * MB];

  // Every case works on one slice of SLICE bytes at a time and the cases take turns slice by slice, so a burst of
  // load from elsewhere on the machine lands on all of them alike; a round's MB/s is ROUND_BYTES over its summed time.
  const slice = (offset: number, size: number) => pool.subarray(offset % pool.length, (offset % pool.length) + size);
  const raw = (chunkSize: number) => () => {
    for (let offset = 0; offset < SLICE; offset += chunkSize) sealChunk(key, nonce, slice(offset, chunkSize));
  };
  const rawJs = (chunkSize: number) => () => {
    for (let offset = 0; offset < SLICE; offset += chunkSize) xchacha20poly1305(key, nonce).encrypt(slice(offset, chunkSize));
  };
  const symmetric = (chunkSize: number) => () => {
    for (let offset = 0; offset < SLICE; offset += chunkSize) {
      const plaintext = slice(offset, chunkSize);
      const ciphertext = sealChunk(key, nonce, plaintext);
      computeChunkId({ index: 0, previousChunkId: null, plaintextHash: sha256Tag(plaintext), encryptedDataHash: sha256Tag(ciphertext) });
    }
  };
  const full = (chunkSize: number, recipients: ChunkRecipient[]) => async () => {
    for await (const _chunk of encryptStream(source(pool, SLICE), { signer, recipients, chunkSize })) { /* dropped */ }
  };

  // Material for decryption: one slice's worth of 256 KiB chunks and their buyer access.
  const chunks: EncryptedChunk[] = [];
  for await (const chunk of encryptStream(source(pool, SLICE), { signer, recipients: one })) chunks.push(chunk);
  const access = chunks.map((c) => createBuyerAccess(c.manifest, machine.secretKey, { recipientId: "buyer", publicKey: buyer.publicKey }));
  const keys = chunks.map((c, i) => openBuyerAccess(access[i], c.manifest, buyer.secretKey));
  const nonces = chunks.map((c) => Buffer.from(c.manifest.encryption.nonce, "hex"));

  const cases: Array<[string, () => Promise<void> | void]> = [
    ...sizes.map((s) => [`raw encrypt ${s / 1024} KiB`, raw(s)] as [string, () => void]),
    [`raw encrypt 256 KiB, JS cipher`, rawJs(262_144)],
    [`raw encrypt 1024 KiB, JS cipher`, rawJs(MB)],
    [`symmetric part 256 KiB`, symmetric(262_144)],
    ...sizes.map((s) => [`full encrypt ${s / 1024} KiB, 1 recipient`, full(s, one)] as [string, () => Promise<void>]),
    [`full encrypt 256 KiB, 2 recipients`, full(262_144, two)],
    [`raw decrypt 256 KiB`, () => { chunks.forEach((c, i) => xchachaOpen(keys[i]!, nonces[i]!, c.ciphertext)); }],
    [`chunk decrypt 256 KiB`, () => { chunks.forEach((c, i) => decryptChunk(c.manifest, c.ciphertext, keys[i]!.slice())); }],
    [`chunk decrypt 256 KiB + unwrap`, () => { chunks.forEach((c, i) => decryptChunk(c.manifest, c.ciphertext, openBuyerAccess(access[i], c.manifest, buyer.secretKey))); }],
  ];
  for (const [, work] of cases) await work(); // warm-up: every path compiled before it is measured
  const results = new Map<string, number[]>(cases.map(([name]) => [name, []]));
  for (let round = 1; round <= rounds; round++) {
    console.error(`round ${round}/${rounds}: stream formats ...`);
    const spent = new Map<string, number>(cases.map(([name]) => [name, 0]));
    for (let done = 0; done < ROUND_BYTES; done += SLICE) {
      for (const [name, work] of cases) spent.set(name, spent.get(name)! + (await timed(work)));
    }
    for (const [name] of cases) results.get(name)!.push(mbps(ROUND_BYTES, spent.get(name)!));
  }
  const m = (name: string) => median(results.get(name)!);
  const line = (name: string, baseline?: string) =>
    console.log(`  ${name.padEnd(36)} ${m(name).toFixed(1).padStart(8)} MB/s${baseline ? `   ${((100 * m(name)) / m(baseline)).toFixed(1).padStart(5)}% of ${baseline}` : ""}`);
  console.log(`\nStream chunk encryption, ${ROUND_BYTES / MB} MB per case, ${rounds} rounds, MB per CPU second on one core (medians; load average ${os.loadavg().map((x) => x.toFixed(1)).join(" / ")}); goal >= 90% of the raw cipher at 256 KiB and 1 MiB`);
  for (const s of sizes) line(`raw encrypt ${s / 1024} KiB`);
  line("raw encrypt 256 KiB, JS cipher", "raw encrypt 256 KiB");
  line("raw encrypt 1024 KiB, JS cipher", "raw encrypt 1024 KiB");
  line("symmetric part 256 KiB", "raw encrypt 256 KiB");
  for (const s of sizes) line(`full encrypt ${s / 1024} KiB, 1 recipient`, `raw encrypt ${s / 1024} KiB`);
  line("full encrypt 256 KiB, 1 recipient", "raw encrypt 256 KiB, JS cipher");
  line("full encrypt 1024 KiB, 1 recipient", "raw encrypt 1024 KiB, JS cipher");
  // The format's own floor: the cipher plus the two SHA-256 passes every chunk needs; beyond it, key, seal, signature.
  line("full encrypt 256 KiB, 1 recipient", "symmetric part 256 KiB");
  line("full encrypt 256 KiB, 2 recipients", "raw encrypt 256 KiB");
  line("raw decrypt 256 KiB");
  line("chunk decrypt 256 KiB", "raw decrypt 256 KiB");
  line("chunk decrypt 256 KiB + unwrap", "raw decrypt 256 KiB");
  benchChunkCosts(rounds);

  console.error(`peak memory while encrypting ${RSS_MB} MB ...`);
  const report = await new Promise<string>((resolve, reject) =>
    execFile(process.execPath, ["--import", "tsx", "test/bench/stream/stream-rss.ts", String(RSS_MB)], { maxBuffer: MB }, (error, stdout) => (error ? reject(error) : resolve(stdout))),
  );
  const rss = JSON.parse(report) as { marks: Array<{ mb: number; peakRssMb: number }>; startRssMb: number; chunks: number; mbPerS: number };
  console.log(`\nPeak RSS encrypting a ${RSS_MB} MB stream generated on the fly (256 KiB chunks, own process, ${rss.chunks} chunks, ${rss.mbPerS.toFixed(1)} MB/s)`);
  console.log(`  before: ${rss.startRssMb.toFixed(1)} MB; peak after ${rss.marks.map((x) => `${x.mb} MB: ${x.peakRssMb.toFixed(1)} MB`).join(", ")}`);
}

if (process.argv[1]?.endsWith("stream-formats.ts")) {
  // Run alone: npx tsx test/bench/stream/stream-formats.ts
  await benchStreamFormats(Number(process.env.BENCH_ROUNDS ?? 3));
}
