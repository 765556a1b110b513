/**
 * A CPU profile of the platform (role `all`) serving machine-agent heartbeats under load (1,000 enrolled agents):
 * `npx tsx test/bench/profile/profile-heartbeats.ts <profile-dir> [seconds] [connections]` (DATABASE_URL: PostgreSQL, a
 * throw-away database is created beside it; unset: PGlite), then `npx tsx test/bench/profile/profile-top.ts
 * <profile-dir>/<file>.cpuprofile 30 <from> <to>` with the printed load window. `PROFILE_ROUTE=list` loads the
 * stack's one-query read `GET /api/v1/machines?limit=1` instead (shim -> gateway -> subgraph -> Prisma).
 */
import autocannon from "autocannon";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createPostgresDatabase } from "../../support/db.js";
import { heartbeats, preparePlatform } from "../markets-heartbeats.js";

const [dir = "/tmp/heartbeat-profile", seconds = "10", connections = "32"] = process.argv.slice(2);
const dataDir = await mkdtemp(path.join(os.tmpdir(), "heartbeat-profile-"));
const database = process.env.DATABASE_URL ? await createPostgresDatabase() : null;
const flags = ["--cpu-prof", `--cpu-prof-dir=${path.resolve(dir)}`];
const platform = await preparePlatform(dataDir, { DATABASE_URL: database?.url ?? "" }, flags);
try {
  const list = process.env.PROFILE_ROUTE === "list";
  const url = list ? `${platform.api}/machines?limit=1` : `${platform.api}/machine-agents/heartbeat`;
  const options = { connections: Number(connections), rounds: 1, durationS: 2 };
  const load = async (durationS: number) => {
    if (!list) return heartbeats(url, platform.tokens, { ...options, durationS });
    const r = await autocannon({ url, connections: options.connections, duration: durationS });
    return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx };
  };
  await load(2);
  const from = process.hrtime.bigint() / 1000n;
  const result = await load(Number(seconds));
  const to = process.hrtime.bigint() / 1000n;
  // CLOCK_MONOTONIC microseconds, the clock of the profile's timestamps: profile-top.ts keeps this window only.
  console.log(`load window: ${from} ${to}`);
  console.log(`${result.rps} req/s, p50 ${result.p50} ms, p99 ${result.p99} ms, non-2xx ${result.non2xx}; load ${os.loadavg()[0]!.toFixed(1)}`);
} finally {
  await platform.process.stop();
  await database?.drop();
  await rm(dataDir, { recursive: true, force: true });
}
