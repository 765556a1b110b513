/**
 * `npm run bench`: throughput and latency of the platform's hot paths against baselines measured in the same run.
 *
 * 1. GET /v1/verify/machines/{id} through the REST shim (role `all`, warm caches) vs a bare node:http handler
 *    answering the same JSON (read-path.ts; alone: BENCH_ONLY=read). Servers run in their own processes; autocannon
 *    runs here. Rounds alternate between the two so machine noise hits both alike; medians are reported.
 * 2. POST /v1/verify/chip/challenge (issuance, real database writes) through the shim: on embedded PGlite, and on
 *    PostgreSQL (a throw-away database) when DATABASE_URL is set; all for one machine (every request updates the same
 *    machine counter row) and spread over the four active demo machines. Target: 1,000 req/s on PostgreSQL.
 * 3. Evidence checks per second on one core (in-process checkEvidence on valid evidence) vs the bare ECDSA P-256
 *    verification it contains (evidence-checks.ts; alone: BENCH_ONLY=evidence).
 * 4. GET /mcr/{did} (document 2) cached, against a bare node:http handler answering the same JSON, with the verify read
 *    route's ratio from step 1 as the target; and uncached (a second platform with MCR_CACHE_TTL=0).
 * 5. Scoring a machine with 10,000 events, cold and warm (mcr-scoring.ts).
 * 6. Document 3: machine-agent heartbeats per second with 1,000 enrolled agents vs a bare node:http handler, on
 *    PGlite and (with DATABASE_URL) PostgreSQL (markets-heartbeats.ts).
 * 7. GET /api/v1/audit-events with a million events, each filter, beside a bare server (audit-events.ts).
 * 8. Document 3 orders: pairing-token verifications per second beside the raw HMAC, and market orders per second
 *    through create, intent and execute with the delegation policy on, PostgreSQL and PGlite (markets-orders.ts).
 * 9. Document 3 payments: wallet proof checks per second beside bare eth_getTransactionReceipt (payment-proofs.ts;
 *    alone: `BENCH_ONLY=payment-proofs npm run bench`).
 * 10. Document 3 stream formats: chunk encryption and decryption MB/s beside the raw XChaCha20-Poly1305 cipher, and
 *    the peak RSS of encrypting a 256 MB stream generated on the fly (stream-formats.ts; alone:
 *    BENCH_ONLY=stream-formats), with where a chunk's time goes step by step (stream-costs.ts).
 * 11. Operator CLI start-up per command family, through `npm run cli`, the compiled CLI alone and tsx, beside
 *    `node -e 0` and `npm -v` (cli-startup.ts; alone: BENCH_ONLY=cli-startup).
 * 12. Document 3 stream marketplace: publishing and buying a 1 GB dataset (BENCH_STREAM_DATASET_MB) with the CLI's
 *    code paths over the peer-to-peer transport, each side's peak RSS by quarter (stream-dataset.ts; alone:
 *    BENCH_ONLY=stream-dataset); then `cli stream publish` and `cli stream buy` of 256 MB and 1 GB through a running
 *    platform, each CLI process's peak RSS (stream-cli.ts; alone: BENCH_ONLY=stream-cli).
 */
import "reflect-metadata";
import autocannon from "autocannon";
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { freePort, roleAllEnv, startRole, type RoleProcess } from "../support/processes.js";
import { createPostgresDatabase } from "../support/db.js";
import { benchEvidenceChecks } from "./evidence-checks.js";
import { benchMcrScoring } from "./mcr-scoring.js";
import { benchAuditEvents } from "./audit-events.js";
import { benchOrders } from "./markets-orders.js";
import { benchPaymentProofs } from "./payment-proofs.js";
import { benchStreamFormats } from "./stream/stream-formats.js";
import { benchCliStartup } from "./cli-startup.js";
import { benchStreamDataset } from "./stream/stream-dataset.js";
import { benchStreamCli } from "./stream/stream-cli.js";
import { summarize, type Sample } from "./stats.js";
import { benchReadPath, readRouteEnv, readRouteUrl, START_TIMEOUT_MS } from "./read-path.js";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const DURATION_S = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
/** The read path is measured at 50 connections, the load its goal is stated for (50% of bare, p99 within 10 ms). */
const READ_CONNECTIONS = Number(process.env.BENCH_READ_CONNECTIONS ?? 50);
const loadAverage = () => os.loadavg().map((x) => x.toFixed(1)).join(" / ");

async function load(opts: autocannon.Options): Promise<Sample> {
  const result = await autocannon({ connections: CONNECTIONS, duration: DURATION_S, ...opts });
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, non2xx: result.non2xx };
}

async function main(): Promise<void> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), "platform-bench-"));
  const processes: RoleProcess[] = [];
  if (process.env.BENCH_ONLY === "cli-startup" || process.env.BENCH_ONLY === "evidence") {
    await (process.env.BENCH_ONLY === "evidence" ? benchEvidenceChecks(ROUNDS) : benchCliStartup());
    await rm(dataDir, { recursive: true, force: true });
    return;
  }
  if (["payment-proofs", "stream-formats", "stream-dataset", "stream-cli"].includes(process.env.BENCH_ONLY ?? "")) {
    if (process.env.BENCH_ONLY === "payment-proofs") await benchPaymentProofs(ROUNDS);
    else if (process.env.BENCH_ONLY === "stream-dataset") await benchStreamDataset();
    else if (process.env.BENCH_ONLY === "stream-cli") await benchStreamCli();
    else await benchStreamFormats(ROUNDS);
    await rm(dataDir, { recursive: true, force: true });
    return;
  }
  if (process.env.BENCH_ONLY === "audit-events") {
    try {
      await benchAuditEvents(dataDir, ROUNDS, DURATION_S, platformEnv, processes);
    } finally {
      for (const child of processes.reverse()) await child.stop();
      await rm(dataDir, { recursive: true, force: true });
    }
    return;
  }
  try {
    const [httpPort, marketsPort, graphqlPort, anvilPort, mcr2Port, altchainPort] = await Promise.all([
      freePort(), freePort(), freePort(), freePort(), freePort(), freePort(),
    ]);
    console.error("starting the platform (role all) ...");
    const ports = [httpPort, marketsPort, graphqlPort, anvilPort, mcr2Port, altchainPort];
    const readEnv = await readRouteEnv(processes);
    const platform = await startRole(["all"], { ...platformEnv(dataDir, ports), ...readEnv }, START_TIMEOUT_MS);
    processes.push(platform);
    const readUrl = await readRouteUrl(ports, dataDir);
    const readPid = platform.child.pid;
    const readOptions = {
      rounds: ROUNDS, durationS: DURATION_S, connections: READ_CONNECTIONS, dataDir, readUrl, readPid, platformEnv, processes,
      databaseUrl: readEnv.DATABASE_URL, graphqlUrl: `http://127.0.0.1:${graphqlPort}/graphql`,
    };
    const { ratio: verifyRatio, bareRps: bareRead } = await benchReadPath(readOptions);
    if (process.env.BENCH_ONLY === "read") return;

    await benchMcrRoute(dataDir, httpPort, verifyRatio, processes);

    console.log(`\nPOST /v1/verify/chip/challenge, ${CONNECTIONS} connections, ${ROUNDS} x ${DURATION_S}s rounds (medians; load average ${loadAverage()})`);
    const machines = await activeMachineIds(dataDir);
    const pglite = summarize("issuance, PGlite (embedded)", await issuanceRounds(httpPort, ["2"]));
    console.log(`  issuance / bare read          ${((100 * pglite.rps) / bareRead).toFixed(1)}%`);
    if (process.env.DATABASE_URL) {
      const database = await createPostgresDatabase();
      try {
        const pgPorts = await Promise.all(Array.from({ length: 6 }, freePort));
        const pgPlatform = await startRole(["all"], {
          ...platformEnv(path.join(dataDir, "pg"), pgPorts),
          DATABASE_URL: database.url,
        });
        processes.push(pgPlatform);
        const pg1 = summarize("issuance, PostgreSQL, 1 machine", await issuanceRounds(pgPorts[0]!, ["2"]));
        const pg4 = summarize(`PostgreSQL, ${machines.length} machines`, await issuanceRounds(pgPorts[0]!, machines));
        console.log(`  issuance on PostgreSQL / bare read  ${((100 * pg1.rps) / bareRead).toFixed(1)}% (1 machine), ${((100 * pg4.rps) / bareRead).toFixed(1)}% (${machines.length} machines); goal >= 7% of the bare read`);
        await pgPlatform.stop();
      } finally {
        await database.drop();
      }
    } else {
      console.log("  (set DATABASE_URL to measure issuance on PostgreSQL too)");
    }

    // The read, MCR and issuance benches are done with their platforms: stop them (and their anvil, which mines and
    // is polled) so the benches below measure beside nothing else of ours still running.
    for (const child of processes.splice(0).reverse()) await child.stop();

    console.error("evidence checks ...");
    await benchEvidenceChecks(ROUNDS);
    console.error("MCR scoring of 10,000 events ...");
    await benchMcrScoring(ROUNDS);
    console.error("machine-agent heartbeats ...");
    await inFreshProcess("test/bench/markets-heartbeats.ts");
    await benchAuditEvents(dataDir, ROUNDS, DURATION_S, platformEnv, processes);
    await benchOrders({ rounds: ROUNDS, durationS: DURATION_S, connections: CONNECTIONS });
    console.error("payment proof checks ...");
    await benchPaymentProofs(ROUNDS);
    console.error("stream formats ...");
    await benchStreamFormats(ROUNDS);
    await benchCliStartup();
    console.error("stream dataset ...");
    await benchStreamDataset();
    console.error("stream cli ...");
    await benchStreamCli();
  } finally {
    for (const child of processes.reverse()) await child.stop();
    // A failed cleanup must not hide the error that ended the run.
    await rm(dataDir, { recursive: true, force: true, maxRetries: 3 }).catch((error) => console.error(`cleanup: ${error}`));
  }
}

/**
 * Runs a standalone bench script in a process of its own, with this run's rounds, seconds and connections. Its load
 * generator (autocannon, in the bench's own process) then does not carry this run's heap: in one full run the
 * heartbeat bench's bare baseline reached 23,381 req/s in process against 34,834 alone, and the heartbeats 980/s
 * against 1,140/s alone (docs/performance.md).
 */
function inFreshProcess(script: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", script], {
      env: { ...process.env, BENCH_ROUNDS: String(ROUNDS), BENCH_SECONDS: String(DURATION_S), BENCH_CONNECTIONS: String(CONNECTIONS) },
      stdio: "inherit",
    });
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve() : reject(new Error(`${script} exited with ${code}`))));
  });
}

/**
 * GET /mcr/{did} of demo machine 7 (50 events): cached on the platform above against a bare server answering its
 * JSON, then uncached on a second platform (MCR_CACHE_TTL=0) of its own.
 */
async function benchMcrRoute(dataDir: string, httpPort: number, verifyRatio: number, processes: RoleProcess[]): Promise<void> {
  const demo = JSON.parse(await readFile(path.join(dataDir, "demo.json"), "utf8"));
  const did = demo.ratings.machines[0].did as string;
  const mcrUrl = `http://127.0.0.1:${httpPort}/mcr/${did}`;
  const bodyFile = path.join(dataDir, "bench-mcr.json");
  await writeFile(bodyFile, Buffer.from(await (await fetch(mcrUrl)).arrayBuffer()));
  const barePort = await freePort();
  const bare = await startRoleScript("test/bench/bare-server.ts", [String(barePort), bodyFile]);
  processes.push(bare);
  const bareUrl = `http://127.0.0.1:${barePort}/mcr/${did}`;
  await load({ url: mcrUrl, duration: 2 });
  const shim: Sample[] = [];
  const baseline: Sample[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    console.error(`round ${round}/${ROUNDS}: /mcr cached ...`);
    baseline.push(await load({ url: bareUrl }));
    shim.push(await load({ url: mcrUrl }));
  }
  console.log(`\nGET /mcr/{did} (machine 7, 50 events), ${CONNECTIONS} connections, ${ROUNDS} x ${DURATION_S}s rounds (medians)`);
  const b = summarize("bare node:http (baseline)", baseline);
  const s = summarize("REST shim, MCR cached", shim);
  const ratio = (100 * s.rps) / b.rps;
  console.log(`  shim / bare throughput      ${ratio.toFixed(1)}%  (target: the verify read route's ${verifyRatio.toFixed(1)}%)`);

  const ports = await Promise.all(Array.from({ length: 6 }, freePort));
  const uncached = await startRole(["all"], { ...platformEnv(path.join(dataDir, "uncached"), ports), MCR_CACHE_TTL: "0" });
  processes.push(uncached);
  const uncachedUrl = `http://127.0.0.1:${ports[0]}/mcr/${did}`;
  const samples: Sample[] = [];
  for (let round = 1; round <= ROUNDS; round++) samples.push(await load({ url: uncachedUrl }));
  const u = summarize("REST shim, MCR_CACHE_TTL=0", samples);
  console.log(`  uncached / bare throughput  ${((100 * u.rps) / b.rps).toFixed(1)}%`);
  await uncached.stop();
  await bare.stop();
}

/** Role `all` with every per-IP limit and open-challenge cap out of the way: the bench measures throughput. */
function platformEnv(dataDir: string, [http, markets, graphql, anvil, mcr2, altchain]: number[]): Record<string, string> {
  return {
    ...roleAllEnv(dataDir, [http, markets, graphql, anvil, mcr2, altchain]),
    RATE_LIMIT_RATINGS_PER_IP: "1000000000",
    RATE_LIMIT_MARKETS_PER_IP: "1000000000",
    RATE_LIMIT_VERIFY_READ_PER_IP: "1000000000",
    RATE_LIMIT_VERIFY_API_PER_IP: "1000000000",
    RATE_LIMIT_CHALLENGE_PER_IP: "1000000000",
    VERIFY_OPEN_CHALLENGES_PER_MACHINE: "1000000000",
    VERIFY_OPEN_CHALLENGES_TOTAL: "1000000000",
  };
}

/** IDs of the demo fixture's active machines (those a challenge can be issued for). */
async function activeMachineIds(dataDir: string): Promise<string[]> {
  const demo = JSON.parse(await readFile(path.join(dataDir, "demo.json"), "utf8")) as {
    machines: Array<{ machineId: string; state: string }>;
  };
  return demo.machines.filter((m) => m.state === "active").map((m) => m.machineId);
}

/** Issuance rounds; each connection cycles through the machines (one request each). */
async function issuanceRounds(httpPort: number, machineIds: string[]): Promise<Sample[]> {
  console.error(`challenge issuance (${machineIds.length} machine(s)) ...`);
  const samples: Sample[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    samples.push(
      await load({
        url: `http://127.0.0.1:${httpPort}/v1/verify/chip/challenge`,
        method: "POST",
        headers: { authorization: "Bearer dev-onboarding-token", "content-type": "application/json" },
        requests: machineIds.map((machineId) => ({ method: "POST", body: JSON.stringify({ machineId }) })),
      }),
    );
  }
  return samples;
}

function startRoleScript(script: string, args: string[]): Promise<RoleProcess> {
  return startRole([], {}, 30_000, [script, ...args]);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
