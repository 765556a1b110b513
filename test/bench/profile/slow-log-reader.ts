/**
 * The read route while the reader of the platform's stdout (its request log) falls behind: the reader stops for
 * 200 ms out of every 400 ms while 50 connections load `GET /v1/verify/machines/1` for 10 s; throughput, p50, p99 and
 * the worst latency (docs/operations.md, "Metrics and logs").
 * `npx tsx test/bench/profile/slow-log-reader.ts [rounds]`; `BENCH_LOG_BEFORE=<dir>` also runs another checkout (set
 * up as for BENCH_READ_BEFORE, docs/performance.md), alternated with this one round by round.
 */
import autocannon from "autocannon";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { freePort, roleAllEnv, startCommand } from "../../support/processes.js";

const rounds = Number(process.argv[2] ?? 2);
/** How long the reader reads, then stops, in turn. */
const TOGGLE_MS = 200;

async function measure(checkout: string): Promise<string> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), "slow-log-"));
  const ports = await Promise.all(Array.from({ length: 6 }, freePort));
  const platform = await startCommand(process.execPath, ["--import", "tsx", path.join(checkout, "gateway", "main.ts"), "all"], {
    ...roleAllEnv(dataDir, ports),
    DATABASE_URL: "",
    RATE_LIMIT_VERIFY_READ_PER_IP: "1000000000",
    RATE_LIMIT_VERIFY_API_PER_IP: "1000000000",
  }, 60_000, checkout);
  const stdout = platform.child.stdout!;
  const toggle = setInterval(() => (stdout.isPaused() ? stdout.resume() : stdout.pause()), TOGGLE_MS);
  try {
    const url = `http://127.0.0.1:${ports[0]}/v1/verify/machines/1`;
    await autocannon({ url, connections: 50, duration: 2 });
    const result = await autocannon({ url, connections: 50, duration: 10 });
    return `${Math.round(result.requests.average)} req/s, p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, worst ${result.latency.max} ms`;
  } finally {
    clearInterval(toggle);
    stdout.resume();
    await platform.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

const checkouts: Array<[string, string]> = [["this checkout", process.cwd()]];
if (process.env.BENCH_LOG_BEFORE) checkouts.push([`before (${process.env.BENCH_LOG_BEFORE})`, path.resolve(process.env.BENCH_LOG_BEFORE)]);
console.log(`GET /v1/verify/machines/1, 50 connections, stdout read ${TOGGLE_MS} ms then left ${TOGGLE_MS} ms, in turn`);
for (let round = 0; round < rounds; round++) {
  // Alternated: the first checkout of a round is the last of the one before.
  for (const [name, dir] of round % 2 === 0 ? checkouts : [...checkouts].reverse()) console.log(`  round ${round + 1}, ${name}: ${await measure(dir)}`);
}
