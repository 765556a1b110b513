/**
 * Document 3, stream marketplace: publishing and buying a large dataset (default 1 GB, BENCH_STREAM_DATASET_MB) with
 * the CLI's code paths, each side in its own process (stream-dataset-child.ts) so each peak RSS is its own:
 *   publish  the dataset's files chunked, encrypted, signed (encryptDataset) into the seller's local store;
 *   serve    the seller's p2p delivery server streaming the ciphertext in chunk.data frames;
 *   buy      the buyer's p2p client (each chunk's SHA-256 checked as it lands) and decryption into files.
 * The files bought are compared with the originals by SHA-256 (streamed). Peak RSS is sampled at each quarter of the
 * bytes: flat marks mean memory does not grow with the dataset.
 */
import { spawn } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { createReadStream, createWriteStream } from "node:fs";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { once } from "node:events";

const MB = 1024 * 1024;
const CHILD = "test/bench/stream/stream-dataset-child.ts";

interface ChildReport {
  role: string;
  startRssMb: number;
  marks: Array<{ at: string; peakRssMb: number }>;
  peakRssMb: number;
  cpuSeconds: number;
  seconds: number;
  bytes: number;
  downloadSeconds?: number;
}

function child(args: string[], onLine?: (line: any) => void): Promise<ChildReport> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, ["--import", "tsx", CHILD, ...args], { stdio: ["ignore", "pipe", "inherit"] });
    let buffer = "";
    let report: ChildReport | null = null;
    proc.stdout.on("data", (bytes: Buffer) => {
      buffer += bytes.toString();
      let newline: number;
      while ((newline = buffer.indexOf("\n")) >= 0) {
        const line = JSON.parse(buffer.slice(0, newline));
        buffer = buffer.slice(newline + 1);
        if (line.role) report = line;
        else onLine?.(line);
      }
    });
    proc.on("error", reject);
    proc.on("close", (code) => (code === 0 && report ? resolve(report) : reject(new Error(`${args[0]} exited ${code}`))));
  });
}

/** Writes `bytes` of random data in 1 MiB writes (never held whole). */
/** Writes `bytes` random bytes to `file`, 1 MiB at a time (also stream-cli.ts). */
export async function writeRandom(file: string, bytes: number): Promise<void> {
  const out = createWriteStream(file);
  for (let done = 0; done < bytes; done += MB) {
    if (!out.write(randomBytes(Math.min(MB, bytes - done)))) await once(out, "drain");
  }
  out.end();
  await once(out, "finish");
}

export async function sha256File(file: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const part of createReadStream(file, { highWaterMark: 4 * MB })) hash.update(part as Buffer);
  return hash.digest("hex");
}

const fmt = (r: ChildReport) =>
  `start ${r.startRssMb.toFixed(1)} MB; peak ${r.marks.map((m) => `at ${m.at}: ${m.peakRssMb.toFixed(1)}`).join(", ")}; end ${r.peakRssMb.toFixed(1)} MB`;

export async function benchStreamDataset(): Promise<void> {
  const totalMb = Number(process.env.BENCH_STREAM_DATASET_MB ?? 1024);
  const chunkSize = Number(process.env.BENCH_STREAM_DATASET_CHUNK ?? MB);
  const root = await mkdtemp(path.join(os.tmpdir(), "stream-dataset-"));
  try {
    const dir = path.join(root, "dataset");
    await mkdir(path.join(dir, "sub"), { recursive: true });
    // Three files: 5/8 and 3/8 of the total less a byte (a short last chunk), and an empty one.
    const files = [
      { name: "a.bin", bytes: Math.floor((totalMb * MB * 5) / 8) },
      { name: "sub/b.bin", bytes: Math.ceil((totalMb * MB * 3) / 8) - 1 },
      { name: "empty.txt", bytes: 0 },
    ];
    console.error(`stream dataset: writing ${totalMb} MB of random files ...`);
    for (const f of files) await writeRandom(path.join(dir, f.name), f.bytes);
    const work = path.join(root, "work");
    await mkdir(work);
    console.error("stream dataset: publish ...");
    const published = await child(["publish", dir, path.join(root, "store"), work, String(chunkSize)]);
    console.error("stream dataset: serve + buy ...");
    let port = 0;
    let portReady: () => void = () => undefined;
    const ready = new Promise<void>((resolve) => (portReady = resolve));
    const served = child(["serve", path.join(root, "store"), work], (line) => {
      port = line.port;
      portReady();
    });
    await ready;
    const out = path.join(root, "bought");
    const bought = await child(["buy", String(port), work, out]);
    const seller = await served;
    let same = true;
    for (const f of files) same &&= (await sha256File(path.join(dir, f.name))) === (await sha256File(path.join(out, f.name)));
    const mbps = (bytes: number, seconds: number) => (bytes / MB / seconds).toFixed(1);
    console.log(`\nStream dataset of ${totalMb} MB (3 files), ${chunkSize / 1024} KiB chunks, each side in its own process (load average ${os.loadavg().map((x) => x.toFixed(1)).join(" / ")})`);
    console.log(`  publish (chunk, encrypt, sign, store): ${published.seconds.toFixed(1)} s, ${mbps(published.bytes, published.seconds)} MB/s (${mbps(published.bytes, published.cpuSeconds)} MB per CPU s); ${fmt(published)}`);
    console.log(`  seller p2p delivery server:            ${seller.seconds.toFixed(1)} s alive; ${fmt(seller)}`);
    console.log(`  buy (p2p download + hash check):       ${bought.downloadSeconds!.toFixed(1)} s, ${mbps(bought.bytes, bought.downloadSeconds!)} MB/s`);
    console.log(`  buy total (download + decrypt files):  ${bought.seconds.toFixed(1)} s, ${mbps(bought.bytes, bought.seconds)} MB/s (${mbps(bought.bytes, bought.cpuSeconds)} MB per CPU s); ${fmt(bought)}`);
    console.log(`  files bought equal the originals (SHA-256): ${same}`);
    if (!same) throw new Error("the bought files differ from the originals");
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

if (process.argv[1]?.endsWith("stream-dataset.ts")) {
  // Run alone: npx tsx test/bench/stream/stream-dataset.ts (BENCH_STREAM_DATASET_MB=64 for a quick run)
  await benchStreamDataset();
}
