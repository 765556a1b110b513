/**
 * A CPU profile of the platform (role `all`) serving market order journeys (create -> intent -> execute through the
 * demo provider) under load: `npx tsx test/bench/profile/profile-orders.ts <profile-dir> [seconds] [workers]`
 * (DATABASE_URL: PostgreSQL, a throw-away database is created beside it; unset: PGlite), then
 * `npx tsx test/bench/profile/profile-top.ts <profile-dir>/<file>.cpuprofile 30 <from> <to>` with the printed load window.
 */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createPostgresDatabase } from "../../support/db.js";
import { journeys, preparePlatform } from "../markets-orders.js";

const [dir = "/tmp/orders-profile", seconds = "10", workers = "32"] = process.argv.slice(2);
const dataDir = await mkdtemp(path.join(os.tmpdir(), "orders-profile-"));
const database = process.env.DATABASE_URL ? await createPostgresDatabase() : null;
const flags = process.env.PROFILE_FLAGS ? process.env.PROFILE_FLAGS.split(" ") : ["--cpu-prof", `--cpu-prof-dir=${path.resolve(dir)}`];
const platform = await preparePlatform(dataDir, { DATABASE_URL: database?.url ?? "" }, () => [], flags);
try {
  const options = { connections: Number(workers), rounds: 1, durationS: 2 };
  await journeys(platform.api, platform.machineId, platform.tokens, options);
  const from = process.hrtime.bigint() / 1000n;
  const result = await journeys(platform.api, platform.machineId, platform.tokens, { ...options, durationS: Number(seconds) });
  const to = process.hrtime.bigint() / 1000n;
  // CLOCK_MONOTONIC microseconds, the clock of the profile's timestamps: profile-top.ts keeps this window only.
  console.log(`load window: ${from} ${to}`);
  console.log(`${result.rps.toFixed(1)} journeys/s, p50 ${result.p50} ms, p99 ${result.p99} ms; load ${os.loadavg()[0]!.toFixed(1)}`);
} finally {
  await platform.child.stop();
  await database?.drop();
  await rm(dataDir, { recursive: true, force: true });
}
