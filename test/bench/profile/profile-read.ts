/**
 * A CPU profile of the platform (role `all`) serving the read route under load:
 * `npx tsx test/bench/profile/profile-read.ts <profile-dir> [seconds] [connections]` (SHIM_ANSWER_REUSE, LOG_REQUESTS and
 * REQUEST_METRICS are passed to the platform; PROFILE_RATE fixes the offered rate; `PROFILE_ROUTE=issuance` loads POST /v1/verify/chip/challenge for demo
 * machine 2 instead, on a throw-away PostgreSQL database when DATABASE_URL is set, else on PGlite), then
 * `npx tsx test/bench/profile/profile-top.ts <profile-dir>/<file>.cpuprofile 30 <from> <to>` (the printed load window) for
 * the top of it.
 */
import autocannon from "autocannon";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createPostgresDatabase } from "../../support/db.js";
import { freePort, startCommand } from "../../support/processes.js";

const [dir = "/tmp/read-profile", seconds = "10", connections = "50"] = process.argv.slice(2);
const dataDir = await mkdtemp(path.join(os.tmpdir(), "platform-profile-"));
const ports = await Promise.all(Array.from({ length: 6 }, freePort));
const [http, markets, graphql, anvil, mcr2, altchain] = ports.map(String);
// `npm start`'s command line with the profiler on (NODE_OPTIONS may not carry --cpu-prof).
const issuance = process.env.PROFILE_ROUTE === "issuance";
const database = issuance && process.env.DATABASE_URL ? await createPostgresDatabase() : null;
const args = [`--cpu-prof`, `--cpu-prof-dir=${path.resolve(dir)}`, "--import", "tsx", "gateway/main.ts", "all"];
const platform = await startCommand(process.execPath, args, {
  DATA_DIR: dataDir, HTTP_PORT: http!, MARKETS_PORT: markets!, GRAPHQL_PORT: graphql!, ANVIL_PORT: anvil!,
  MCR2_PORT: mcr2!, ALTCHAIN_RPC_PORT: altchain!, DEMO_PROVIDER_PORT: "0",
  RATE_LIMIT_VERIFY_READ_PER_IP: "1000000000", RATE_LIMIT_VERIFY_API_PER_IP: "1000000000",
  RATE_LIMIT_CHALLENGE_PER_IP: "1000000000", VERIFY_OPEN_CHALLENGES_PER_MACHINE: "1000000000", VERIFY_OPEN_CHALLENGES_TOTAL: "1000000000",
  DATABASE_URL: database?.url ?? "",
  // Passed through to profile the uncached path (SHIM_ANSWER_REUSE=0) or the route without logs and metrics.
  ...Object.fromEntries(["SHIM_ANSWER_REUSE", "LOG_REQUESTS", "REQUEST_METRICS"].flatMap((name) => (process.env[name] ? [[name, process.env[name]!]] : []))),
});
try {
  const url = `http://127.0.0.1:${http}/v1/verify/${issuance ? "chip/challenge" : "machines/1"}`;
  const request = issuance
    ? { method: "POST" as const, headers: { authorization: "Bearer dev-onboarding-token", "content-type": "application/json" }, body: JSON.stringify({ machineId: "2" }) }
    : {};
  await autocannon({ url, connections: Number(connections), duration: 2, ...request });
  const from = process.hrtime.bigint() / 1000n;
  // PROFILE_RATE: a fixed offered rate (req/s), so that two profiles (logs on and off) serve the same load.
  const overallRate = Number(process.env.PROFILE_RATE ?? 0) || undefined;
  const result = await autocannon({ url, connections: Number(connections), duration: Number(seconds), overallRate, ...request });
  const to = process.hrtime.bigint() / 1000n;
  // CLOCK_MONOTONIC microseconds, the clock of the profile's timestamps: profile-top.ts keeps this window only.
  console.log(`load window: ${from} ${to}`);
  console.log(`${result.requests.average} req/s, p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, non-2xx ${result.non2xx}; load ${os.loadavg()[0]!.toFixed(1)}`);
} finally {
  await platform.stop();
  await database?.drop();
  await rm(dataDir, { recursive: true, force: true });
}
