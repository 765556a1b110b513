/**
 * Document 3, stream marketplace through the running platform: `cli stream publish` and `cli stream buy` (order
 * flow: the stablecoin transfer proven on the chain, access prepared by `cli stream serve --no-p2p`, download over
 * HTTP) of datasets of BENCH_STREAM_CLI_MB (default "256,1024") MB, each CLI run in its own process under
 * /usr/bin/time, whose maximum RSS is the process's peak: the same peak for 256 MB and 1 GB means memory does not
 * grow with the dataset. Chunks of BENCH_STREAM_CLI_CHUNK (default 16 MiB, chosen when the markets routes' 64 KiB JSON
 * bodies bounded a listing to about 850 chunk IDs; listings now take 10,000 and prepare-access 10,000 entries).
 * Alone: `BENCH_ONLY=stream-cli npm run bench` or `npx tsx test/bench/stream/stream-cli.ts`.
 */
import { spawn } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { createPostgresDatabase } from "../../support/db.js";
import { freePort, roleAllEnv, startRole } from "../../support/processes.js";
import { sha256File, writeRandom } from "./stream-dataset.js";
import { bindDemoMachine, call } from "../load.js";

const MB = 1024 * 1024;


/** Runs the CLI under /usr/bin/time: its JSON lines, seconds and peak RSS (MB). */
function cli(args: string[], env: Record<string, string>): Promise<{ lines: any[]; seconds: number; peakRssMb: number }> {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const child = spawn("/usr/bin/time", ["-f", "PEAK_RSS_KB=%M", process.execPath, "--import", "tsx", "gateway/cli/main.ts", ...args], {
      env: { ...process.env, LOG_LEVEL: "silent", CHAIN_TIMEOUT_MS: "30000", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (b: Buffer) => (stdout += b.toString()));
    child.stderr.on("data", (b: Buffer) => (stderr += b.toString()));
    child.on("error", reject);
    child.on("close", (code) => {
      const kb = Number(/PEAK_RSS_KB=(\d+)/.exec(stderr)?.[1] ?? NaN);
      if (code !== 0) return reject(new Error(`cli ${args.join(" ")} exited ${code}: ${stderr.slice(-2000)}`));
      resolve({ lines: stdout.trim().split("\n").map((l) => JSON.parse(l)), seconds: (performance.now() - start) / 1000, peakRssMb: kb / 1024 });
    });
  });
}

export async function benchStreamCli(): Promise<void> {
  const sizes = (process.env.BENCH_STREAM_CLI_MB ?? "256,1024").split(",").map(Number);
  const chunkSize = Number(process.env.BENCH_STREAM_CLI_CHUNK ?? 16 * MB);
  const root = await mkdtemp(path.join(os.tmpdir(), "stream-cli-bench-"));
  const dataDir = path.join(root, "data");
  const [http, markets, graphql, anvil, mcr2, altchain, provider] = await Promise.all(Array.from({ length: 7 }, freePort));
  console.error("stream cli: starting the platform ...");
  // A throw-away database when DATABASE_URL is set (the demo machine it binds must not be bound already), else PGlite.
  const database = process.env.DATABASE_URL ? await createPostgresDatabase() : null;
  const platform = await startRole(["all"], {
    ...roleAllEnv(dataDir, [http, markets, graphql, anvil, mcr2, altchain, provider]),
    RATE_LIMIT_MARKETS_PER_IP: "1000000000",
    DATABASE_URL: database?.url ?? "",
  }, 180_000).catch(async (error) => {
    await database?.drop();
    throw error;
  });
  let serve: ReturnType<typeof spawn> | null = null;
  try {
    const base = `http://127.0.0.1:${markets}`;
    const api = `${base}/api/v1`;
    const record = (await bindDemoMachine(api, dataDir)) as { machineId: string; asMachine: Record<string, string> };
    const bound = (await call(`${api}/machines/${record.machineId}`, "GET")).item;
    const enrolled = (await call(`${api}/machines/${record.machineId}/agents/enrollment`, "POST", { allowedProviderKeys: ["stream"], label: "stream bench" }, record.asMachine)).item;
    const sellerFile = path.join(root, "seller.json");
    await writeFile(sellerFile, JSON.stringify({ machineId: record.machineId, machineDid: bound.identityRef, agentId: enrolled.agent.id, agentToken: enrolled.agentToken }));
    const env = { DATA_DIR: dataDir };
    serve = spawn(process.execPath, ["--import", "tsx", "gateway/cli/main.ts", "stream", "serve", "--seller", sellerFile, "--no-p2p", "--interval", "0.5", "--api", base], { env: { ...process.env, ...env, LOG_LEVEL: "silent" }, stdio: "ignore" });
    const rows: string[] = [];
    for (const size of sizes) {
      const dir = path.join(root, `dataset-${size}`);
      await mkdir(dir, { recursive: true });
      console.error(`stream cli: ${size} MB dataset ...`);
      await writeRandom(path.join(dir, "a.bin"), Math.floor((size * MB * 3) / 4));
      await writeRandom(path.join(dir, "b.bin"), Math.ceil((size * MB) / 4) - 1);
      const published = await cli(["stream", "publish", dir, "--seller", sellerFile, "--price", "0.01", "--chunk-size", String(chunkSize), "--api", base], env);
      const listingId = published.lines.at(-1).listingId;
      const out = path.join(root, `bought-${size}`);
      const bought = await cli(["stream", "buy", listingId, "--out", out, "--buyer-key", path.join(root, "buyer.json"), "--wait", "600", "--api", base], env);
      let same = true;
      for (const f of ["a.bin", "b.bin"]) same &&= (await sha256File(path.join(dir, f))) === (await sha256File(path.join(out, f)));
      if (!same) throw new Error("the bought files differ from the originals");
      rows.push(`| ${size} MB, ${published.lines.at(-1).chunks} chunks | ${published.seconds.toFixed(1)} s (${(size / published.seconds).toFixed(1)} MB/s) | ${published.peakRssMb.toFixed(1)} MB | ${bought.seconds.toFixed(1)} s (${(size / bought.seconds).toFixed(1)} MB/s) | ${bought.peakRssMb.toFixed(1)} MB | ${same} |`);
      await rm(dir, { recursive: true, force: true });
      await rm(out, { recursive: true, force: true });
    }
    console.log(`\ncli stream publish / buy through the platform (order flow, HTTP download), ${chunkSize / MB} MiB chunks, each CLI run its own process (load average ${os.loadavg().map((x) => x.toFixed(1)).join(" / ")})`);
    console.log("| Dataset | publish | publish peak RSS | buy (verify, order, pay, wait, download, decrypt) | buy peak RSS | files equal |");
    console.log("| --- | --- | --- | --- | --- | --- |");
    for (const row of rows) console.log(row);
  } finally {
    serve?.kill("SIGTERM");
    await platform.stop();
    await database?.drop();
    await rm(root, { recursive: true, force: true, maxRetries: 3 });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await benchStreamCli();
