/**
 * What the markets benchmarks share: a JSON client, role `all` started with the benchmark's limits out of the way and
 * demo machine 1 bound, a closed-loop worker pool timing one journey at a time per worker, the throw-away PostgreSQL
 * database when DATABASE_URL is set, and the standalone entry (BENCH_ROUNDS, BENCH_SECONDS, BENCH_CONNECTIONS).
 */
import { Wallet } from "ethers";
import http from "node:http";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { createPostgresDatabase } from "../support/db.js";
import { freePort, projectRoot, roleAllEnv, startCommand, startRole, type RoleProcess } from "../support/processes.js";
import { START_TIMEOUT_MS } from "./read-path.js";
import { latencySample, type BenchOptions, type Sample } from "./stats.js";

/**
 * Keep-alive connections for `call`, as many as a bench's workers use. `node:http` rather than `fetch`: the load
 * generator shares the cores with the platform, and `fetch` cost about 1 ms of CPU per call here (a journey's three
 * calls 2.6 to 4 ms, as much as the platform's own work), where autocannon, which drives the read routes the
 * journeys are compared with, costs a fraction of that.
 */
const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });

/** A JSON request; answers other than 2xx throw with their status and body. */
export function call(url: string, method: string, body?: unknown, headers: Record<string, string> = {}): Promise<any> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      { method, agent, headers: payload === undefined ? headers : { "content-type": "application/json", "content-length": Buffer.byteLength(payload), ...headers } },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("error", reject);
        response.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          const status = response.statusCode ?? 0;
          if (status < 200 || status >= 300) reject(new Error(`${method} ${url}: ${status} ${text}`));
          else {
            try {
              resolve(JSON.parse(text));
            } catch (error) {
              reject(error);
            }
          }
        });
      },
    );
    request.on("error", reject);
    request.end(payload);
  });
}

export interface MarketsPlatform {
  child: RoleProcess;
  /** `http://127.0.0.1:<MARKETS_PORT>/api/v1` */
  api: string;
  /** The platform's demo.json (machines, markets provider, payments). */
  demo: any;
  /** Headers with a session of demo machine 1's controller: the machine's authority for its writes. */
  asMachine: Record<string, string>;
  /** The id of demo machine 1, bound by its controller key. */
  machineId: string;
}

/**
 * Starts role `all` on free ports with the markets per-IP limit out of the way (the demo provider on its own port
 * when `demoProvider`, else off), then binds demo machine 1 through the identity challenge.
 */
export async function startMarketsPlatform(dataDir: string, env: Record<string, string>, demoProvider: boolean, nodeFlags: string[] = []): Promise<MarketsPlatform> {
  const ports = await Promise.all(Array.from({ length: demoProvider ? 7 : 6 }, freePort));
  const env_ = { ...roleAllEnv(dataDir, ports), RATE_LIMIT_MARKETS_PER_IP: "1000000000", ...env };
  const child = nodeFlags.length
    ? await startCommand(process.execPath, [...nodeFlags, "--import", "tsx", path.join(projectRoot, "gateway", "main.ts"), "all"], env_, START_TIMEOUT_MS)
    : await startRole(["all"], env_, START_TIMEOUT_MS);
  const markets = ports[1];
  const api = `http://127.0.0.1:${markets}/api/v1`;
  const { demo, machineId, asMachine } = await bindDemoMachine(api, dataDir);
  return { child, api, demo, machineId, asMachine };
}

/** Binds demo machine 1 of the platform serving `api` (its demo.json under `dataDir`) through the identity challenge. */
export async function bindDemoMachine(api: string, dataDir: string): Promise<{ demo: any; machineId: string; asMachine: Record<string, string> }> {
  const demo = JSON.parse(await readFile(path.join(dataDir, "demo.json"), "utf8"));
  const machine = demo.machines[0];
  const wallet = new Wallet(machine.controllerPrivateKey);
  const proof = async () => {
    const challenge = (await call(`${api}/machine-identity/challenges`, "POST", { identityRef: machine.did })).item;
    return { challengeId: challenge.challengeId, signature: await wallet.signMessage(challenge.message) };
  };
  const record = (await call(`${api}/machines`, "POST", { displayName: "bench", identityRef: machine.did, identityProof: await proof() })).item;
  // The machine's authority for its writes (docs/markets-identity.md "Machine sessions").
  const session = (await call(`${api}/machine-identity/sessions`, "POST", { machineId: record.id, identityProof: await proof() })).item;
  return { demo, machineId: record.id as string, asMachine: { authorization: `Bearer ${session.sessionToken}` } };
}

/**
 * `connections` workers, each running one journey at a time until `durationS` has passed. `journey(worker)` prepares
 * one journey (a throw there ends the run) and returns what is timed; a timed journey that throws counts as a failure.
 */
export async function closedLoop(options: Pick<BenchOptions, "connections" | "durationS">, journey: (worker: number) => () => Promise<unknown>): Promise<Sample> {
  const latencies: number[] = [];
  let failures = 0;
  const deadline = performance.now() + options.durationS * 1000;
  const worker = async (index: number) => {
    while (performance.now() < deadline) {
      const run = journey(index);
      const start = performance.now();
      try {
        await run();
        latencies.push(performance.now() - start);
      } catch {
        failures += 1;
      }
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: options.connections }, (_, i) => worker(i)));
  return latencySample(latencies, (performance.now() - started) / 1000, failures);
}

/** Runs `measure` with a throw-away PostgreSQL database's DATABASE_URL, or prints `missing` when DATABASE_URL is unset. */
export async function onPostgres(missing: string, measure: (env: Record<string, string>) => Promise<unknown>): Promise<void> {
  if (!process.env.DATABASE_URL) {
    console.log(missing);
    return;
  }
  const database = await createPostgresDatabase();
  try {
    await measure({ DATABASE_URL: database.url });
  } finally {
    await database.drop();
  }
}

/** Runs `bench` when `moduleUrl` is the script node was started with (`npx tsx test/bench/<name>.ts`). */
export function runStandalone(moduleUrl: string, bench: (options: BenchOptions) => Promise<void>): void {
  if (moduleUrl !== pathToFileURL(process.argv[1] ?? "").href) return;
  bench({
    rounds: Number(process.env.BENCH_ROUNDS ?? 3),
    durationS: Number(process.env.BENCH_SECONDS ?? 5),
    connections: Number(process.env.BENCH_CONNECTIONS ?? 32),
  }).catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
