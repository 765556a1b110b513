/**
 * `npm run bench`: throughput and latency of the platform's hot paths against baselines measured in the same run.
 *
 * 1. GET /v1/verify/machines/{id} through the REST shim (role `all`, warm caches) vs a bare node:http handler
 *    answering the same JSON. Servers run in their own processes; autocannon runs here. Rounds alternate between
 *    the two so machine noise hits both alike; medians are reported.
 * 2. POST /v1/verify/chip/challenge (issuance, real database writes) through the shim: on embedded PGlite, and on
 *    PostgreSQL (a throw-away database) when DATABASE_URL is set.
 * 3. Evidence checks per second on one core (in-process checkEvidence on valid evidence) vs the bare ECDSA P-256
 *    verification it contains.
 */
import "reflect-metadata";
import autocannon from "autocannon";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { freePort, startRole, type RoleProcess } from "../support/processes.js";
import { createPostgresDatabase } from "../support/db.js";
import { benchEvidenceChecks } from "./evidence-checks.js";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const DURATION_S = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);

interface Sample {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function load(opts: autocannon.Options): Promise<Sample> {
  const result = await autocannon({ connections: CONNECTIONS, duration: DURATION_S, ...opts });
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, non2xx: result.non2xx };
}

function summarize(name: string, samples: Sample[]) {
  const s = { rps: median(samples.map((x) => x.rps)), p50: median(samples.map((x) => x.p50)), p99: median(samples.map((x) => x.p99)) };
  const errors = samples.reduce((sum, x) => sum + x.non2xx, 0);
  console.log(`  ${name.padEnd(28)} ${s.rps.toFixed(0).padStart(8)} req/s   p50 ${s.p50} ms   p99 ${s.p99} ms${errors ? `   non-2xx ${errors}` : ""}`);
  return s;
}

async function main(): Promise<void> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), "platform-bench-"));
  const processes: RoleProcess[] = [];
  try {
    const [httpPort, marketsPort, graphqlPort, anvilPort, barePort] = await Promise.all([
      freePort(), freePort(), freePort(), freePort(), freePort(),
    ]);
    console.error("starting the platform (role all) ...");
    processes.push(await startRole(["all"], platformEnv(dataDir, [httpPort, marketsPort, graphqlPort, anvilPort])));
    const readUrl = `http://127.0.0.1:${httpPort}/v1/verify/machines/1`;
    const body = Buffer.from(await (await fetch(readUrl)).arrayBuffer());
    const bodyFile = path.join(dataDir, "bench-body.json");
    await writeFile(bodyFile, body);
    processes.push(await startRoleScript("test/bench/bare-server.ts", [String(barePort), bodyFile]));
    const bareUrl = `http://127.0.0.1:${barePort}/v1/verify/machines/1`;

    console.error(`warming up (${DURATION_S}s each) ...`);
    await load({ url: readUrl, duration: 2 });
    await load({ url: bareUrl, duration: 2 });

    const shim: Sample[] = [];
    const bare: Sample[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      console.error(`round ${round}/${ROUNDS}: read route ...`);
      bare.push(await load({ url: bareUrl }));
      shim.push(await load({ url: readUrl }));
    }
    console.log(`\nGET /v1/verify/machines/1, ${CONNECTIONS} connections, ${ROUNDS} x ${DURATION_S}s rounds (medians)`);
    const b = summarize("bare node:http (baseline)", bare);
    const s = summarize("REST shim -> gateway", shim);
    console.log(`  shim / bare throughput      ${((100 * s.rps) / b.rps).toFixed(1)}%  (target >= 15%)`);

    console.log(`\nPOST /v1/verify/chip/challenge, ${CONNECTIONS} connections, ${ROUNDS} x ${DURATION_S}s rounds (medians)`);
    const pglite = summarize("issuance, PGlite (embedded)", await issuanceRounds(httpPort));
    console.log(`  issuance / bare read          ${((100 * pglite.rps) / b.rps).toFixed(1)}%`);
    if (process.env.DATABASE_URL) {
      const database = await createPostgresDatabase();
      try {
        const pgPorts = await Promise.all([freePort(), freePort(), freePort(), freePort()]);
        const pgPlatform = await startRole(["all"], {
          ...platformEnv(path.join(dataDir, "pg"), pgPorts),
          DATABASE_URL: database.url,
        });
        processes.push(pgPlatform);
        summarize("issuance, PostgreSQL", await issuanceRounds(pgPorts[0]!));
        await pgPlatform.stop();
      } finally {
        await database.drop();
      }
    } else {
      console.log("  (set DATABASE_URL to measure issuance on PostgreSQL too)");
    }

    console.error("evidence checks ...");
    await benchEvidenceChecks(ROUNDS);
  } finally {
    for (const child of processes.reverse()) await child.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** Role `all` with every per-IP limit and open-challenge cap out of the way: the bench measures throughput. */
function platformEnv(dataDir: string, [http, markets, graphql, anvil]: number[]): Record<string, string> {
  return {
    DATA_DIR: dataDir,
    HTTP_PORT: String(http),
    MARKETS_PORT: String(markets),
    GRAPHQL_PORT: String(graphql),
    ANVIL_PORT: String(anvil),
    RATE_LIMIT_VERIFY_READ_PER_IP: "1000000000",
    RATE_LIMIT_VERIFY_API_PER_IP: "1000000000",
    RATE_LIMIT_CHALLENGE_PER_IP: "1000000000",
    VERIFY_OPEN_CHALLENGES_PER_MACHINE: "1000000000",
    VERIFY_OPEN_CHALLENGES_TOTAL: "1000000000",
  };
}

async function issuanceRounds(httpPort: number): Promise<Sample[]> {
  console.error("challenge issuance ...");
  const samples: Sample[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    samples.push(
      await load({
        url: `http://127.0.0.1:${httpPort}/v1/verify/chip/challenge`,
        method: "POST",
        headers: { authorization: "Bearer dev-onboarding-token", "content-type": "application/json" },
        body: JSON.stringify({ machineId: "2" }),
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
