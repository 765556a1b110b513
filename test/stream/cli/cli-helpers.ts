/**
 * Helpers of the `cli stream` end-to-end suite: the seller file the CLI reads, a dataset directory of
 * random files, the seller's `stream serve` agent as a background child process, and directory comparison.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { toHex } from "../../../subgraphs/markets/stream/index.js";
import type { MarketsPlatform } from "../../markets/helpers.js";
import type { StreamSeller } from "../helpers.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");

/** Writes the CLI's seller file for a seller made over the real routes (its signing key already registered). */
export async function writeSellerFile(file: string, seller: StreamSeller): Promise<void> {
  await writeFile(
    file,
    JSON.stringify({
      machineId: seller.machineId,
      machineDid: seller.identityRef,
      agentId: seller.agentId,
      agentToken: seller.agentToken,
      keyId: seller.signer.keyId,
      signingSecretKeyHex: toHex(seller.signer.secretKey),
      boxSecretKeyHex: toHex(seller.boxSecretKey),
      signingKeyRegistered: true,
    }),
  );
}

/** A dataset: files of the given sizes (random bytes) under `dir`, answered by relative path. */
export async function writeDataset(dir: string, files: Record<string, number>): Promise<Map<string, Buffer>> {
  const out = new Map<string, Buffer>();
  for (const [name, size] of Object.entries(files)) {
    const bytes = randomBytes(size);
    await mkdir(path.dirname(path.join(dir, name)), { recursive: true });
    await writeFile(path.join(dir, name), bytes);
    out.set(name, bytes);
  }
  return out;
}

/** True when every file of `expected` is in `dir` with the same bytes. */
export async function sameFiles(dir: string, expected: Map<string, Buffer>): Promise<boolean> {
  for (const [name, bytes] of expected) {
    const got = await readFile(path.join(dir, name)).catch(() => null);
    if (!got || !got.equals(bytes)) return false;
  }
  return true;
}

export interface ServeProcess {
  /** The JSON lines printed so far. */
  lines: any[];
  stderr: () => string;
  /** Resolves with the first line matching `match` (already printed or to come). */
  line(match: (line: any) => boolean): Promise<any>;
  stop(): Promise<void>;
}

/** `cli stream serve` for the seller file, in the background (stopped by its process ID). */
export function startServe(p: MarketsPlatform, sellerFile: string, extra: string[] = []): ServeProcess {
  const child: ChildProcess = spawn(
    process.execPath,
    ["--import", "tsx", path.join(root, "gateway", "cli", "main.ts"), "stream", "serve", "--seller", sellerFile, "--api", p.markets, "--interval", "0.2", ...extra],
    { cwd: root, env: { ...process.env, LOG_LEVEL: "silent", DATA_DIR: p.dataDir }, stdio: ["ignore", "pipe", "pipe"] },
  );
  const lines: any[] = [];
  const waiters: Array<{ match: (line: any) => boolean; resolve: (line: any) => void }> = [];
  let buffer = "";
  let stderr = "";
  child.stderr!.on("data", (bytes: Buffer) => (stderr += bytes.toString()));
  child.stdout!.on("data", (bytes: Buffer) => {
    buffer += bytes.toString();
    let newline: number;
    while ((newline = buffer.indexOf("\n")) >= 0) {
      const line = JSON.parse(buffer.slice(0, newline));
      buffer = buffer.slice(newline + 1);
      lines.push(line);
      for (const w of waiters.filter((w) => w.match(line))) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(line);
      }
    }
  });
  const exited = new Promise<void>((resolve) => child.once("close", () => resolve()));
  return {
    lines,
    stderr: () => stderr,
    line(match) {
      const found = lines.find(match);
      if (found) return Promise.resolve(found);
      return Promise.race([
        new Promise((resolve) => waiters.push({ match, resolve })),
        exited.then(() => {
          throw new Error(`stream serve exited: ${stderr}`);
        }),
      ]);
    },
    async stop() {
      if (child.exitCode === null) child.kill("SIGTERM");
      await exited;
    },
  };
}
