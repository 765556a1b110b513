/**
 * Challenge issuance alone: POST /v1/verify/chip/challenge through the REST shim (role `all`) on PostgreSQL (a
 * throw-away database; PGlite when DATABASE_URL is unset) for one machine and spread over the demo's active machines,
 * beside a bare node:http handler answering a verify read's JSON (the same-run baseline `npm run bench` states the
 * ratio against), rounds alternating; medians with the platform's CPU per request.
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
import { measureCpu, summarize, type BenchOptions, type Sample } from "./stats.js";

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

async function round(url: string, options: BenchOptions, machineIds: string[] | undefined, pid?: number): Promise<Sample> {
  return measureCpu(pid, async () => {
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
}

export async function benchIssuance(options: BenchOptions): Promise<void> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), "bench-issuance-"));
  const processes: RoleProcess[] = [];
  const databases: Awaited<ReturnType<typeof createPostgresDatabase>>[] = [];
  const before = process.env.BENCH_ISSUANCE_BEFORE;
  const variants = before ? [{ name: "before", root: before }, { name: "this code", root: projectRoot }] : [{ name: "this code", root: projectRoot }];
  try {
    const targets: Array<{ name: string; url: string; pid?: number; machines?: string[]; samples: Sample[] }> = [];
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
      targets.push({ name: `issuance, 1 machine (${variant.name})`, url, pid: platform.child.pid, machines: [machines[0]!], samples: [] });
      targets.push({ name: `issuance, ${machines.length} machines (${variant.name})`, url, pid: platform.child.pid, machines, samples: [] });
    }
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
      for (const target of targets) target.samples.push(await round(target.url, options, target.machines, target.pid));
    }
    const kind = process.env.DATABASE_URL ? "PostgreSQL" : "PGlite";
    console.log(`\nPOST /v1/verify/chip/challenge, ${kind}, ${options.connections} connections, ${options.rounds} x ${options.durationS}s (medians; load average ${os.loadavg().map((x) => x.toFixed(1)).join(" / ")})`);
    const b = summarize(bareTarget.name, bareTarget.samples, 44);
    for (const target of targets) {
      const s = summarize(target.name, target.samples, 44);
      console.log(`  ${"  / bare read".padEnd(44)} ${((100 * s.rps) / b.rps).toFixed(1)}%`);
    }
  } finally {
    for (const child of processes.reverse()) await child.stop();
    for (const database of databases) await database.drop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

runStandalone(import.meta.url, benchIssuance);
