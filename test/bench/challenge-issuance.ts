/**
 * Challenge issuance alone: POST /v1/verify/chip/challenge through the REST shim (role `all`) on PostgreSQL (a
 * throw-away database; PGlite when DATABASE_URL is unset) for one machine and spread over the demo's active machines,
 * beside a bare node:http handler answering a verify read's JSON (the same-run baseline `npm run bench` states the
 * ratio against), rounds alternating; medians with the platform's CPU per request.
 *
 * On PostgreSQL it also runs issuance's floor in the same rounds (issuance-floor-server.ts: node:http, the body's
 * parse, the nonce and the platform's own capped insert on a `pg` pool) and prints each platform's CPU per issuance as
 * the floor's plus what the stack adds, and the CPU per issuance of every process the route needs (the server,
 * PostgreSQL, the platform's dev chain, the load generator) with the most issuances per second that CPU allows on the
 * machine's cores.
 *
 * `BENCH_ISSUANCE_BEFORE=<dir>` also runs another checkout (set up as for BENCH_READ_BEFORE, docs/performance.md) on
 * its own database in the same rounds: before and after from one run.
 *
 * Alone: `npx tsx test/bench/challenge-issuance.ts` (BENCH_ROUNDS, BENCH_SECONDS, BENCH_CONNECTIONS).
 */
import autocannon from "autocannon";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createPostgresDatabase } from "../support/db.js";
import { freePort, roleAllEnv, startCommand, startRole, type RoleProcess } from "../support/processes.js";
import { runStandalone } from "./load.js";
import { CORES, measureCpu, median, splitPer, startCpuSplit, summarize, type BenchOptions, type CpuSplit, type Sample } from "./stats.js";

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/** One round; with `split`, also the CPU per request of PostgreSQL's server, the platform's chain and this generator. */
async function round(url: string, options: BenchOptions, machineIds: string[] | undefined, pid?: number, split?: CpuSplit[]): Promise<Sample> {
  const counting = split ? startCpuSplit(pid) : null;
  const sample = await measureCpu(pid, async () => {
    const result = await autocannon({
      url,
      connections: options.connections,
      duration: options.durationS,
      ...(machineIds
        ? {
            method: "POST",
            headers: { authorization: "Bearer dev-onboarding-token", "content-type": "application/json" },
            requests: machineIds.map((machineId) => ({ method: "POST" as const, body: JSON.stringify({ machineId }) })),
          }
        : {}),
    });
    return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, non2xx: result.non2xx, total: result.requests.total };
  });
  const n = sample.rps * options.durationS;
  if (counting && n > 0) split!.push(splitPer(counting(), n, 1000));
  return sample;
}

/** The machine's challenge as the platform answers it, one per machine: the floor answers the same members. */
async function issuedChallenges(url: string, machineIds: string[]): Promise<Record<string, unknown>> {
  const challenges: Record<string, unknown> = {};
  for (const machineId of machineIds) {
    const response = await fetch(url, {
      method: "POST",
      headers: { authorization: "Bearer dev-onboarding-token", "content-type": "application/json" },
      body: JSON.stringify({ machineId }),
    });
    if (response.status !== 201) throw new Error(`issuance for machine ${machineId} answered ${response.status}`);
    challenges[machineId] = await response.json();
  }
  return challenges;
}

export async function benchIssuance(options: BenchOptions): Promise<void> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), "bench-issuance-"));
  const processes: RoleProcess[] = [];
  const databases: Awaited<ReturnType<typeof createPostgresDatabase>>[] = [];
  const before = process.env.BENCH_ISSUANCE_BEFORE;
  const variants = before ? [{ name: "before", root: before }, { name: "this code", root: projectRoot }] : [{ name: "this code", root: projectRoot }];
  try {
    const targets: Array<{ name: string; url: string; pid?: number; machines?: string[]; samples: Sample[]; split: CpuSplit[] }> = [];
    const floors: typeof targets = [];
    let machines: string[] = [];
    for (const variant of variants) {
      const database = process.env.DATABASE_URL ? await createPostgresDatabase() : undefined;
      if (database) databases.push(database);
      const ports = await Promise.all(Array.from({ length: 6 }, freePort));
      const dir = path.join(dataDir, variant.name.replace(/\W/g, "-"));
      console.error(`starting the platform (${variant.name}) ...`);
      const platform = await startCommand(process.execPath, ["--import", "tsx", path.join(variant.root, "gateway", "main.ts"), "all"], {
        ...roleAllEnv(dir, ports),
        DATABASE_URL: database?.url ?? "",
        RATE_LIMIT_CHALLENGE_PER_IP: "1000000000",
        RATE_LIMIT_VERIFY_API_PER_IP: "1000000000",
        VERIFY_OPEN_CHALLENGES_PER_MACHINE: "1000000000",
        VERIFY_OPEN_CHALLENGES_TOTAL: "1000000000",
      }, 240_000, variant.root);
      processes.push(platform);
      const demo = JSON.parse(await readFile(path.join(dir, "demo.json"), "utf8")) as { machines: Array<{ machineId: string; state: string }> };
      machines = demo.machines.filter((m) => m.state === "active").map((m) => m.machineId);
      const url = `http://127.0.0.1:${ports[0]}/v1/verify/chip/challenge`;
      targets.push({ name: `issuance, 1 machine (${variant.name})`, url, pid: platform.child.pid, machines: [machines[0]!], samples: [], split: [] });
      targets.push({ name: `issuance, ${machines.length} machines (${variant.name})`, url, pid: platform.child.pid, machines, samples: [], split: [] });
      if (database && variant.root === projectRoot) {
        // The floor on this code's database, with the challenges it issued as the members to answer.
        const challengesFile = path.join(dataDir, "challenges.json");
        await writeFile(challengesFile, JSON.stringify(await issuedChallenges(url, machines)));
        const floorPort = await freePort();
        const floor = await startRole([], {}, 30_000, ["test/bench/issuance-floor-server.ts", String(floorPort), database.url, challengesFile]);
        processes.push(floor);
        const floorUrl = `http://127.0.0.1:${floorPort}/`;
        floors.push({ name: "floor, 1 machine", url: floorUrl, pid: floor.child.pid, machines: [machines[0]!], samples: [], split: [] });
        floors.push({ name: `floor, ${machines.length} machines`, url: floorUrl, pid: floor.child.pid, machines, samples: [], split: [] });
      }
    }
    targets.push(...floors);
    const bodyFile = path.join(dataDir, "read-body.json");
    await writeFile(bodyFile, JSON.stringify({ machineId: "1", status: "active", verified: true }));
    const barePort = await freePort();
    const bare = await startRole([], {}, 30_000, ["test/bench/bare-server.ts", String(barePort), bodyFile]);
    processes.push(bare);
    const bareTarget = { name: "bare node:http read (baseline)", url: `http://127.0.0.1:${barePort}/`, pid: bare.child.pid, samples: [] as Sample[] };
    for (const target of targets) await round(target.url, { ...options, durationS: 2 }, target.machines);
    for (let r = 1; r <= options.rounds; r++) {
      console.error(`round ${r}/${options.rounds}: issuance ...`);
      bareTarget.samples.push(await round(bareTarget.url, options, undefined, bareTarget.pid));
      for (const target of targets) target.samples.push(await round(target.url, options, target.machines, target.pid, target.split));
    }
    const kind = process.env.DATABASE_URL ? "PostgreSQL" : "PGlite";
    console.log(`\nPOST /v1/verify/chip/challenge, ${kind}, ${options.connections} connections, ${options.rounds} x ${options.durationS}s (medians; load average ${os.loadavg().map((x) => x.toFixed(1)).join(" / ")})`);
    const b = summarize(bareTarget.name, bareTarget.samples, 44);
    const summaries = new Map(targets.map((target) => [target, summarize(target.name, target.samples, 44)]));
    for (const [target, s] of summaries) {
      const floor = [...summaries].find(([t]) => floors.includes(t) && t.machines!.length === target.machines!.length)?.[1];
      const beyond = floor?.cpuUs && s.cpuUs && !floors.includes(target) ? `;  CPU = floor ${floor.cpuUs.toFixed(0)} us + ${(s.cpuUs - floor.cpuUs).toFixed(0)} us` : "";
      const of = (part: keyof CpuSplit) => median(target.split.map((x) => x[part]));
      console.log(`  ${`  ${target.name}`.padEnd(44)} ${((100 * s.rps) / b.rps).toFixed(1)}% of the bare read${beyond}`);
      if (!process.env.DATABASE_URL || target.split.length === 0) continue;
      // Every process the route needs shares the machine's cores: the most issuances per second their CPU allows.
      const rest = of("postgres") + of("chain") + of("generator");
      const all = (CORES * 1e6) / (of("platform") + rest);
      console.log(
        `      CPU per issuance: server ${of("platform").toFixed(0)} us, PostgreSQL ${of("postgres").toFixed(0)} us, chain ${of("chain").toFixed(0)} us, load generator ${of("generator").toFixed(0)} us;` +
          ` all of it on ${CORES} cores: at most ${all.toFixed(0)}/s = ${((100 * all) / b.rps).toFixed(1)}% of the bare read; without the server: ${((100 * CORES * 1e6) / rest / b.rps).toFixed(1)}%`,
      );
    }
  } finally {
    for (const child of processes.reverse()) await child.stop();
    for (const database of databases) await database.drop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

runStandalone(import.meta.url, benchIssuance);
