/**
 * The verify read path: GET /v1/verify/machines/1 through the REST shim (role `all`, warm caches) at 50 connections,
 * beside a bare node:http handler answering the same bytes with the same headers, rounds alternating so that machine
 * noise hits both alike; medians are reported with the load average.
 *
 * `BENCH_READ_BEFORE=<dir>` also starts the platform from another checkout of the project (e.g. a copy of `main`,
 * `git archive main | tar -x -C <dir>` with node_modules and the generated Prisma client beside it) and measures it
 * in the same rounds: today's and the new figure from one run. A second platform with the shim's answer reuse off
 * (`SHIM_ANSWER_REUSE=0`) shows what a request costs when the chain moved since the last one (`BENCH_READ_UNCACHED=0`
 * skips it), and a third without per-request logs and metrics (`LOG_REQUESTS=0 REQUEST_METRICS=0`) what those cost
 * (`BENCH_READ_UNOBSERVED=0` skips it).
 *
 * Alone: `BENCH_ONLY=read npm run bench`.
 */
import autocannon from "autocannon";
import { writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { freePort, startCommand, startRole, type RoleProcess } from "../support/processes.js";
import { measureCpu, summarize, type Sample } from "./stats.js";

export interface ReadPathOptions {
  rounds: number;
  durationS: number;
  connections: number;
  dataDir: string;
  /** URL of the platform the rest of the bench uses (already started), and its process (CPU per request). */
  readUrl: string;
  readPid?: number;
  platformEnv: (dataDir: string, ports: number[]) => Record<string, string>;
  processes: RoleProcess[];
}

/** A platform start on a loaded shared machine can take minutes (deploy, demo seeding, migrations). */
export const START_TIMEOUT_MS = 240_000;

const loadAverage = () => os.loadavg().map((x) => x.toFixed(1)).join(" / ");

async function load(url: string, connections: number, duration: number, pid?: number): Promise<Sample> {
  return measureCpu(pid, async () => {
    const result = await autocannon({ url, connections, duration });
    return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, non2xx: result.non2xx, total: result.requests.total };
  });
}

async function startPlatformCopy(options: ReadPathOptions, name: string, extraEnv: Record<string, string>, root?: string): Promise<{ url: string; pid?: number }> {
  const ports = await Promise.all(Array.from({ length: 6 }, freePort));
  const env = { ...options.platformEnv(path.join(options.dataDir, name), ports), ...extraEnv };
  const child = root
    ? // node itself (not the tsx launcher), so that the pid measured for CPU time is the server's; cwd `root` for its tsconfig.
      await startCommand(process.execPath, ["--import", "tsx", path.join(root, "gateway", "main.ts"), "all"], env, START_TIMEOUT_MS, root)
    : await startRole(["all"], env, START_TIMEOUT_MS);
  options.processes.push(child);
  return { url: `http://127.0.0.1:${ports[0]}/v1/verify/machines/1`, pid: child.child.pid };
}

/** The median shim / bare throughput ratio (percent) of the platform at `readUrl`, and the bare server's rate. */
export async function benchReadPath(options: ReadPathOptions): Promise<{ ratio: number; bareRps: number }> {
  const { rounds, durationS, connections } = options;
  const body = Buffer.from(await (await fetch(options.readUrl)).arrayBuffer());
  const bodyFile = path.join(options.dataDir, "bench-body.json");
  await writeFile(bodyFile, body);
  const barePort = await freePort();
  const bareServer = await startRole([], {}, 30_000, ["test/bench/bare-server.ts", String(barePort), bodyFile]);
  options.processes.push(bareServer);

  const targets: Array<{ name: string; url: string; pid?: number; samples: Sample[] }> = [
    { name: "bare node:http (baseline)", url: `http://127.0.0.1:${barePort}/v1/verify/machines/1`, pid: bareServer.child.pid, samples: [] },
  ];
  const before = process.env.BENCH_READ_BEFORE;
  if (before) {
    const { url, pid } = await startPlatformCopy(options, "before", {}, before);
    const answer = Buffer.from(await (await fetch(url)).arrayBuffer());
    if (!answer.equals(body)) throw new Error(`the checkout in ${before} answers other bytes than this code`);
    targets.push({ name: "shim, before (BENCH_READ_BEFORE)", url, pid, samples: [] });
  }
  targets.push({ name: "REST shim -> gateway", url: options.readUrl, pid: options.readPid, samples: [] });
  if (process.env.BENCH_READ_UNOBSERVED !== "0") {
    const { url, pid } = await startPlatformCopy(options, "unobserved", { LOG_REQUESTS: "0", REQUEST_METRICS: "0" });
    targets.push({ name: "shim, logs + metrics off", url, pid, samples: [] });
  }
  if (process.env.BENCH_READ_UNCACHED !== "0") {
    const { url, pid } = await startPlatformCopy(options, "uncached", { SHIM_ANSWER_REUSE: "0" });
    targets.push({ name: "shim, SHIM_ANSWER_REUSE=0", url, pid, samples: [] });
  }

  console.error(`warming up the read path ...`);
  for (const target of targets) await load(target.url, connections, 2);
  for (let round = 1; round <= rounds; round++) {
    console.error(`round ${round}/${rounds}: read route ...`);
    for (const target of targets) target.samples.push(await load(target.url, connections, durationS, target.pid));
  }
  console.log(`\nGET /v1/verify/machines/1, ${connections} connections, ${rounds} x ${durationS}s rounds (medians; load average ${loadAverage()})`);
  const [bare, ...paths] = targets.map((target) => summarize(target.name, target.samples, 34));
  let ratio = 0;
  paths.forEach((s, i) => {
    const percent = (100 * s.rps) / bare!.rps;
    const name = targets[i + 1]!.name;
    if (name === "REST shim -> gateway") ratio = percent;
    // CPU per request of bare / of this path: the throughput ratio a CPU-bound server would reach, load aside.
    const cpu = s.cpuUs && bare!.cpuUs ? `  CPU-per-request ratio ${((100 * bare!.cpuUs) / s.cpuUs).toFixed(1)}%` : "";
    console.log(`  ${`${name} / bare`.padEnd(44)} ${percent.toFixed(1)}%  p99 ${s.p99} ms${cpu}  (target >= 25%, p99 < 10 ms)`);
  });
  return { ratio, bareRps: bare!.rps };
}
