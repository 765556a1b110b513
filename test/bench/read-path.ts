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
 * Alone: `BENCH_ONLY=read npm run bench`. `BENCH_READ_ROUTE=markets-list` measures `GET /api/v1/machines?limit=1`
 * instead (document 3's list: shim, one subgraph, one prepared statement), each platform with one bound demo machine
 * and, when DATABASE_URL is set, its own throw-away PostgreSQL database (else PGlite); the before/after check then
 * compares statuses and item counts, as record IDs and times differ between platforms. On PostgreSQL the list is also
 * measured against its floor in the same rounds: a bare node:http handler that runs the list's statement on a pg pool
 * and answers the same bytes (statement-server.ts), what any Node server answering the route from PostgreSQL pays;
 * and against the shim alone over the operation's canned result (shim-alone-server.ts), which splits what the stack
 * adds into the shim's HTTP side and the operation. Identical list reads arriving together share one statement
 * (Database.read), so the list is also measured with every request asking for a page of its own: a cursor of its own
 * before the one machine, the same answer, no two statements alike. That target shows what a request costs when it
 * cannot share, and the split is taken from it.
 */
import autocannon from "autocannon";
import { writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createPostgresDatabase } from "../support/db.js";
import { freePort, startCommand, startRole, type RoleProcess } from "../support/processes.js";
import { LIST_FIRST } from "../../subgraphs/markets/machines/market-machine.repository.js";
import { encodeCursor } from "../../subgraphs/markets/common/pagination.js";
import { bindDemoMachine } from "./load.js";
import { measureCpu, summarize, type Sample } from "./stats.js";

export type ReadRoute = "verify" | "markets-list";
export const READ_ROUTE: ReadRoute = process.env.BENCH_READ_ROUTE === "markets-list" ? "markets-list" : "verify";
const ROUTE_LABEL = READ_ROUTE === "verify" ? "GET /v1/verify/machines/1" : "GET /api/v1/machines?limit=1";
const TARGET = READ_ROUTE === "verify" ? "goal >= 50% with logs and metrics on, p99 <= 10 ms" : "target: CPU-per-request ratio >= 20% (5x bare), p99 <= 20 ms";

/**
 * The platform environment the read route needs besides `platformEnv`: for the markets list on PostgreSQL a
 * throw-away database, dropped when `processes` are stopped (its entry comes before the platform's).
 */
export async function readRouteEnv(processes: RoleProcess[]): Promise<Record<string, string>> {
  if (READ_ROUTE === "verify" || !process.env.DATABASE_URL) return {};
  const database = await createPostgresDatabase();
  processes.push({ child: undefined as never, output: () => "", stop: () => database.drop() });
  return { DATABASE_URL: database.url };
}

/** The read route's URL on a platform started on `ports`, once what it reads is there (the list: one bound machine). */
export async function readRouteUrl(ports: number[], dataDir: string): Promise<string> {
  if (READ_ROUTE === "verify") return `http://127.0.0.1:${ports[0]}/v1/verify/machines/1`;
  const api = `http://127.0.0.1:${ports[1]}/api/v1`;
  await bindDemoMachine(api, dataDir);
  return `${api}/machines?limit=1`;
}

/** Two answers of the route are the same answer (the list's record IDs and times differ between platforms). */
function sameAnswer(a: Buffer, b: Buffer): boolean {
  if (READ_ROUTE === "verify") return a.equals(b);
  return JSON.parse(a.toString()).items.length === JSON.parse(b.toString()).items.length;
}

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
  /** The main platform's database when it is PostgreSQL (readRouteEnv): the markets list's floor reads it. */
  databaseUrl?: string;
  /** The main platform's gateway (`/graphql`): the markets list's shim-alone server reads its canned answer there. */
  graphqlUrl?: string;
}

/** A platform start on a loaded shared machine can take minutes (deploy, demo seeding, migrations). */
export const START_TIMEOUT_MS = 240_000;

const loadAverage = () => os.loadavg().map((x) => x.toFixed(1)).join(" / ");

let pageNumber = 0;

/**
 * The list's first page asked for with a cursor of its own: an instant in 1970 (before any machine) that no other
 * request of the run uses, so the page is the same and no two statements have the same values.
 */
function distinctPage(url: string): string {
  const { pathname } = new URL(url);
  return `${pathname}?limit=1&cursor=${encodeCursor([new Date(++pageNumber).toISOString(), "m"])}`;
}

async function load(url: string, connections: number, duration: number, pid?: number, distinct = false): Promise<Sample> {
  return measureCpu(pid, async () => {
    const requests: autocannon.Request[] | undefined = distinct ? [{ setupRequest: (request) => ({ ...request, path: distinctPage(url) }) }] : undefined;
    const result = await autocannon({ url, connections, duration, requests });
    return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, non2xx: result.non2xx, total: result.requests.total };
  });
}

async function startPlatformCopy(options: ReadPathOptions, name: string, extraEnv: Record<string, string>, root?: string): Promise<{ url: string; pid?: number }> {
  const ports = await Promise.all(Array.from({ length: 6 }, freePort));
  const dataDir = path.join(options.dataDir, name);
  const env = { ...options.platformEnv(dataDir, ports), ...(await readRouteEnv(options.processes)), ...extraEnv };
  const child = root
    ? // node itself (not the tsx launcher), so that the pid measured for CPU time is the server's; cwd `root` for its tsconfig.
      await startCommand(process.execPath, ["--import", "tsx", path.join(root, "gateway", "main.ts"), "all"], env, START_TIMEOUT_MS, root)
    : await startRole(["all"], env, START_TIMEOUT_MS);
  options.processes.push(child);
  return { url: await readRouteUrl(ports, dataDir), pid: child.child.pid };
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

  const targets: Array<{ name: string; url: string; pid?: number; samples: Sample[]; distinct?: boolean }> = [
    { name: "bare node:http (baseline)", url: `http://127.0.0.1:${barePort}${new URL(options.readUrl).pathname}`, pid: bareServer.child.pid, samples: [] },
  ];
  let floorName: string | undefined;
  if (READ_ROUTE === "markets-list" && options.databaseUrl) {
    const floorPort = await freePort();
    // The shim's `limit=1` runs the list's first-page statement with one row more than the page (its next cursor).
    const statement = JSON.stringify({ text: LIST_FIRST, values: [2] });
    const floor = await startRole([], {}, 30_000, ["test/bench/statement-server.ts", String(floorPort), bodyFile, options.databaseUrl, statement]);
    options.processes.push(floor);
    floorName = "floor: node:http + the statement (pg)";
    targets.push({ name: floorName, url: `http://127.0.0.1:${floorPort}/api/v1/machines`, pid: floor.child.pid, samples: [] });
  }
  let shimAloneName: string | undefined;
  if (READ_ROUTE === "markets-list" && options.graphqlUrl) {
    const shimPort = await freePort();
    const env = options.platformEnv(path.join(options.dataDir, "shim-alone"), [0, shimPort, 0, 0, 0, 0]);
    const shim = await startRole([], env, 30_000, ["test/bench/shim-alone-server.ts", String(shimPort), options.graphqlUrl, env.DATA_DIR!]);
    options.processes.push(shim);
    shimAloneName = "shim alone (canned operation result)";
    targets.push({ name: shimAloneName, url: `http://127.0.0.1:${shimPort}/api/v1/machines?limit=1`, pid: shim.child.pid, samples: [] });
  }
  const before = process.env.BENCH_READ_BEFORE;
  if (before) {
    const { url, pid } = await startPlatformCopy(options, "before", {}, before);
    const answer = Buffer.from(await (await fetch(url)).arrayBuffer());
    if (!sameAnswer(answer, body)) throw new Error(`the checkout in ${before} answers other bytes than this code`);
    targets.push({ name: "shim, before (BENCH_READ_BEFORE)", url, pid, samples: [] });
  }
  const current = READ_ROUTE === "verify" ? "REST shim -> gateway" : "REST shim (this code)";
  targets.push({ name: current, url: options.readUrl, pid: options.readPid, samples: [] });
  let distinctName: string | undefined;
  if (READ_ROUTE === "markets-list") {
    const answer = Buffer.from(await (await fetch(new URL(distinctPage(options.readUrl), options.readUrl))).arrayBuffer());
    if (!answer.equals(body)) throw new Error(`a page asked for with a cursor of its own answers other bytes: ${answer.toString()}`);
    distinctName = "REST shim, a page of its own per request";
    targets.push({ name: distinctName, url: options.readUrl, pid: options.readPid, samples: [], distinct: true });
  }
  if (process.env.BENCH_READ_UNOBSERVED !== "0") {
    const { url, pid } = await startPlatformCopy(options, "unobserved", { LOG_REQUESTS: "0", REQUEST_METRICS: "0" });
    targets.push({ name: "shim, logs + metrics off", url, pid, samples: [] });
  }
  if (process.env.BENCH_READ_UNCACHED !== "0") {
    const { url, pid } = await startPlatformCopy(options, "uncached", { SHIM_ANSWER_REUSE: "0" });
    targets.push({ name: "shim, SHIM_ANSWER_REUSE=0", url, pid, samples: [] });
  }

  console.error(`warming up the read path ...`);
  for (const target of targets) await load(target.url, connections, 2, undefined, target.distinct);
  for (let round = 1; round <= rounds; round++) {
    console.error(`round ${round}/${rounds}: read route ...`);
    // Every other round in reverse order, so that no target always runs right after another.
    const order = round % 2 === 0 ? [...targets].reverse() : targets;
    for (const target of order) target.samples.push(await load(target.url, connections, durationS, target.pid, target.distinct));
  }
  console.log(`\n${ROUTE_LABEL}, ${connections} connections, ${rounds} x ${durationS}s rounds (medians; load average ${loadAverage()})`);
  const [bare, ...paths] = targets.map((target) => summarize(target.name, target.samples, 34));
  const floor = paths.find((_, i) => targets[i + 1]!.name === floorName);
  let ratio = 0;
  paths.forEach((s, i) => {
    const percent = (100 * s.rps) / bare!.rps;
    const name = targets[i + 1]!.name;
    if (name === current) ratio = percent;
    // CPU per request of bare / of this path: the throughput ratio a CPU-bound server would reach, load aside.
    const cpu = s.cpuUs && bare!.cpuUs ? `  CPU-per-request ratio ${((100 * bare!.cpuUs) / s.cpuUs).toFixed(1)}%` : "";
    console.log(`  ${`${name} / bare`.padEnd(44)} ${percent.toFixed(1)}%  p99 ${s.p99} ms${cpu}  (${TARGET})`);
  });
  if (floor) {
    // Each platform's CPU per request beyond the floor's: what the stack adds to the route's unavoidable work.
    paths.forEach((s, i) => {
      const name = targets[i + 1]!.name;
      if (name === floorName || name === shimAloneName || !s.cpuUs || !floor.cpuUs) return;
      const extra = s.cpuUs - floor.cpuUs;
      console.log(`  ${`${name} / floor`.padEnd(44)} ${((100 * s.rps) / floor.rps).toFixed(1)}%  CPU ${s.cpuUs.toFixed(0)} us = floor ${floor.cpuUs.toFixed(0)} us + ${extra.toFixed(0)} us`);
    });
    // The stack split in two: the shim's HTTP side (the shim alone beyond bare) and the operation (the rest), for
    // requests that share no statement (the floor shares none).
    const shimAlone = paths.find((_, i) => targets[i + 1]!.name === shimAloneName);
    const platform = paths.find((_, i) => targets[i + 1]!.name === (distinctName ?? current));
    if (shimAlone?.cpuUs && platform?.cpuUs && floor.cpuUs && bare!.cpuUs) {
      const stack = platform.cpuUs - floor.cpuUs;
      const http = shimAlone.cpuUs - bare!.cpuUs;
      console.log(
        `  the stack's ${stack.toFixed(0)} us${distinctName ? " (a page of its own per request)" : ""} = the shim's HTTP side ${http.toFixed(0)} us (shim alone ${shimAlone.cpuUs.toFixed(0)} us - bare) ` +
          `+ the operation ${(stack - http).toFixed(0)} us (GraphQL execution, resolver, service, rule 1's verdict)`,
      );
    }
  }
  return { ratio, bareRps: bare!.rps };
}
