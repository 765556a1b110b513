/**
 * Document 3: machine-agent heartbeats per second with 1,000 enrolled agents, through the REST shim (role `all`),
 * beside a bare node:http handler answering the same JSON (the same-run baseline). Each agent reports its own
 * provider key, so every heartbeat upserts its own endpoint row, updates its agent and writes its audit event in one
 * transaction. On PGlite, and on PostgreSQL (a throw-away database) when DATABASE_URL is set (target: >= 1,000/s).
 *
 * Standalone: `npx tsx test/bench/markets-heartbeats.ts` (BENCH_ROUNDS, BENCH_SECONDS, BENCH_CONNECTIONS,
 * BENCH_HEARTBEAT_AGENTS).
 * `BENCH_HEARTBEATS_BEFORE=<dir>` also runs another checkout (set up as for BENCH_READ_BEFORE, docs/performance.md)
 * in the same rounds, for before/after figures from one run.
 */
import autocannon from "autocannon";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createPostgresDatabase } from "../support/db.js";
import { execPath } from "node:process";
import { freePort, roleAllEnv, startCommand, startRole, type RoleProcess } from "../support/processes.js";
import { bindDemoMachine, call, runStandalone } from "./load.js";
import { measureCpu, summarize, type Sample } from "./stats.js";

/**
 * Enrolled agents (`BENCH_HEARTBEAT_AGENTS`, default 1,000). The requests cycle through them, so each agent's
 * heartbeats come AGENTS / rate seconds apart: with 20,000 agents at a few thousand per second that is several
 * seconds, as for agents heartbeating every half lease, so nothing kept per agent for a few seconds is still fresh.
 */
export const AGENTS = Number(process.env.BENCH_HEARTBEAT_AGENTS ?? 1000);
const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

interface Options {
  rounds: number;
  durationS: number;
  connections: number;
}

/**
 * Starts role `all`, binds demo machine 1 and enrols AGENTS agents, each allowed its own provider key. `nodeFlags`
 * go to the platform's node (profile-heartbeats.ts: `--cpu-prof`).
 */
export async function preparePlatform(dataDir: string, env: Record<string, string>, nodeFlags: string[] = [], root?: string): Promise<{ process: RoleProcess; api: string; tokens: string[] }> {
  const ports = await Promise.all(Array.from({ length: 6 }, freePort));
  const process = await startCommand(execPath, [...nodeFlags, "--import", "tsx", path.join(root ?? projectRoot, "gateway", "main.ts"), "all"], {
    ...roleAllEnv(dataDir, ports),
    RATE_LIMIT_MARKETS_PER_IP: "1000000000",
    ...env,
  }, 180_000, root ?? projectRoot);
  const api = `http://127.0.0.1:${ports[1]}/api/v1`;
  const { machineId, asMachine } = await bindDemoMachine(api, dataDir);
  const tokens: string[] = new Array(AGENTS);
  const enrol = async (start: number) => {
    for (let i = start; i < AGENTS; i += 8) {
      tokens[i] = (await call(`${api}/machines/${machineId}/agents/enrollment`, "POST", { label: `agent ${i}`, allowedProviderKeys: [`p${i}`] }, asMachine)).item.agentToken;
    }
  };
  await Promise.all(Array.from({ length: 8 }, (_, start) => enrol(start)));
  return { process, api, tokens };
}

function heartbeatBody(token: string, index: number): string {
  return JSON.stringify({ agentToken: token, leaseSeconds: 60, endpoint: { providerKey: `p${index}`, endpointBaseUrl: `http://10.0.${index >> 8}.${index & 255}:8080` } });
}

async function sample(url: string, options: Options, pid?: number): Promise<Sample> {
  return measureCpu(pid, async () => {
    const result = await autocannon({ url, connections: options.connections, duration: options.durationS });
    return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, non2xx: result.non2xx, total: result.requests.total };
  });
}

/** One measured autocannon run whose requests cycle through every agent. */
export async function heartbeats(url: string, tokens: string[], options: Options, pid?: number): Promise<Sample> {
  return measureCpu(pid, () => heartbeatRound(url, tokens, options));
}

/** One autocannon run whose requests cycle through every agent: for `options.durationS`, or `amount` requests. */
async function heartbeatRound(url: string, tokens: string[], options: Options, amount?: number): Promise<Sample & { total: number }> {
  let next = 0;
  const result = await autocannon({
    url,
    connections: options.connections,
    ...(amount === undefined ? { duration: options.durationS } : { amount }),
    requests: [
      {
        method: "POST",
        headers: { "content-type": "application/json" },
        setupRequest: (request) => {
          const index = next++ % tokens.length;
          return { ...request, body: heartbeatBody(tokens[index]!, index) };
        },
      },
    ],
  });
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, non2xx: result.non2xx, total: result.requests.total };
}

/** A platform to measure: this checkout, or (`root`) another one, e.g. a copy of main for a before/after run. */
interface Variant {
  name: string;
  root?: string;
}

function variants(): Variant[] {
  const before = process.env.BENCH_HEARTBEATS_BEFORE;
  return before ? [{ name: "before", root: before }, { name: "this code" }] : [{ name: "this code" }];
}

/** `envs[i]` is the environment of `variants()[i]` (each its own database). */
async function measure(label: string, dataDir: string, envs: Array<Record<string, string>>, bare: { url: string; pid?: number }, options: Options, processes: RoleProcess[]) {
  const { url: bareUrl, pid: barePid } = bare;
  const platforms: Array<{ variant: Variant; url: string; api: string; tokens: string[]; shim: Sample[]; read: Sample[]; process: RoleProcess }> = [];
  for (const [index, variant] of variants().entries()) {
    const env = envs[index]!;
    console.error(`heartbeats on ${label} (${variant.name}): starting a platform and enrolling ${AGENTS} agents ...`);
    const platform = await preparePlatform(path.join(dataDir, variant.name.replace(/\W/g, "-")), env, [], variant.root);
    processes.push(platform.process);
    const url = `${platform.api}/machine-agents/heartbeat`;
    // Warm-up: 2 s, and at least one heartbeat from every agent (what is kept per agent is then kept for all).
    await heartbeats(url, platform.tokens, { ...options, durationS: 2 });
    await heartbeatRound(url, platform.tokens, { ...options, durationS: 0 }, AGENTS);
    platforms.push({ variant, url, api: platform.api, tokens: platform.tokens, shim: [], read: [], process: platform.process });
  }
  const bareSamples: Sample[] = [];
  for (let round = 1; round <= options.rounds; round++) {
    console.error(`round ${round}/${options.rounds}: heartbeats (${label}) ...`);
    bareSamples.push(await heartbeats(bareUrl, platforms[0]!.tokens, options, barePid));
    // Each round in the other order, so what runs second in a round (a warmer or a busier machine) favours neither.
    for (const p of round % 2 === 1 ? platforms : [...platforms].reverse()) {
      // The same stack without writes: what the shim, gateway and subgraph cost on this machine right now.
      const pid = p.process.child.pid;
      p.read.push(await sample(`${p.api}/machines?limit=1`, options, pid));
      p.shim.push(await heartbeats(p.url, p.tokens, options, pid));
    }
  }
  console.log(`\nPOST /api/v1/machine-agents/heartbeat, ${AGENTS} agents, ${label}, ${options.connections} connections, ${options.rounds} x ${options.durationS}s (medians; load average ${os.loadavg().map((x) => x.toFixed(1)).join(" / ")})`);
  const b = summarize("bare node:http (baseline)", bareSamples, 34);
  for (const p of platforms) {
    const suffix = platforms.length > 1 ? ` (${p.variant.name})` : "";
    const r = summarize(`GET /api/v1/machines?limit=1${suffix}`, p.read, 34);
    const s = summarize(`heartbeats, ${label}${suffix}`, p.shim, 34);
    console.log(`  heartbeats / bare throughput${suffix}       ${((100 * s.rps) / b.rps).toFixed(1)}%   (goal >= 10%)`);
    const cpu = s.cpuUs && r.cpuUs ? `; CPU per request: read / heartbeat ${((100 * r.cpuUs) / s.cpuUs).toFixed(1)}%` : "";
    console.log(`  heartbeats / stack read${suffix}            ${((100 * s.rps) / r.rps).toFixed(1)}%${cpu}`);
  }
  for (const p of platforms) await p.process.stop();
}

export async function benchHeartbeats(options: Options): Promise<void> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), "bench-heartbeats-"));
  const processes: RoleProcess[] = [];
  try {
    const bodyFile = path.join(dataDir, "heartbeat-answer.json");
    await writeFile(bodyFile, JSON.stringify({ item: { agent: { id: "magt_0", status: "active" }, endpoints: [], leaseExpiresAt: new Date().toISOString() } }));
    const barePort = await freePort();
    const bare = await startRole([], {}, 30_000, ["test/bench/bare-server.ts", String(barePort), bodyFile]);
    processes.push(bare);
    const bareTarget = { url: `http://127.0.0.1:${barePort}/api/v1/machine-agents/heartbeat`, pid: bare.child.pid };
    // Children inherit this process's environment: an empty DATABASE_URL keeps the PGlite run on PGlite.
    if (process.env.BENCH_HEARTBEATS_PGLITE !== "0") {
      await measure("PGlite", path.join(dataDir, "pglite"), variants().map(() => ({ DATABASE_URL: "" })), bareTarget, options, processes);
    }
    if (process.env.DATABASE_URL) {
      const databases: Awaited<ReturnType<typeof createPostgresDatabase>>[] = [];
      try {
        for (const _ of variants()) databases.push(await createPostgresDatabase());
        await measure("PostgreSQL", path.join(dataDir, "pg"), databases.map((db) => ({ DATABASE_URL: db.url })), bareTarget, options, processes);
      } finally {
        for (const database of databases) await database.drop();
      }
    } else {
      console.log("  (set DATABASE_URL to measure heartbeats on PostgreSQL too)");
    }
  } finally {
    for (const child of processes.reverse()) await child.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

runStandalone(import.meta.url, benchHeartbeats);
