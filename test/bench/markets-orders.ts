/**
 * Document 3, issue 9: (1) pairing-token verifications per second in process (PairingTokens.verify: jose HS256,
 * issuer, audience, expiry, claim checks) beside the raw HMAC-SHA256 of the same signing input, alternating rounds in
 * the same run; (2) market orders per second through create -> payment intent (not-required) -> execute (the demo
 * provider) over the REST shim, with the delegation policy on (allow list, per-transaction and daily limits summed in
 * the database), on PostgreSQL when DATABASE_URL is set (a throw-away database) and on PGlite; beside the same
 * stack's GET /machines?limit=1 in the same run. Each worker is one agent journey at a time; the workers share
 * PAIRINGS pairings (orders of one pairing serialise on its row lock, by design).
 *
 * Standalone: `npx tsx test/bench/markets-orders.ts` (BENCH_ROUNDS, BENCH_SECONDS, BENCH_CONNECTIONS).
 */
import autocannon from "autocannon";
import { createHmac, timingSafeEqual } from "node:crypto";
import { Wallet } from "ethers";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { PairingTokens } from "../../subgraphs/markets/pairing.token.js";
import { createPostgresDatabase } from "../support/db.js";
import { freePort, startRole, type RoleProcess } from "../support/processes.js";
import { median, summarize, type Sample } from "./stats.js";

const PAIRINGS = 8;

interface Options {
  rounds: number;
  durationS: number;
  connections: number;
}

async function call(url: string, method: string, body?: unknown, headers: Record<string, string> = {}): Promise<any> {
  const response = await fetch(url, { method, headers: { ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers }, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${url}: ${response.status} ${text}`);
  return JSON.parse(text);
}

/** Operations per second of `op` over `ms` milliseconds (synchronous loop, or awaited). */
async function rate(op: () => unknown, ms: number): Promise<number> {
  const start = performance.now();
  let n = 0;
  while (performance.now() - start < ms) {
    for (let i = 0; i < 100; i++) await op();
    n += 100;
  }
  return (n * 1000) / (performance.now() - start);
}

export async function benchJwt(options: Options): Promise<void> {
  const secret = "bench-secret-0123456789abcdef0123456789";
  const tokens = new PairingTokens([secret], "service", 3600);
  const now = Date.now();
  const { token } = await tokens.issue(
    { machineId: "mach_0", pairingId: "pair_aaaaaaaaaaaaaaaa", sessionId: "sess_x", agentAddress: "0x00000000000000000000000000000000000000a1", agentDid: null, delegationPolicyHash: "ab".repeat(32), jti: "stok_x" },
    now,
  );
  const [header, payload, signature] = token.split(".") as [string, string, string];
  const expected = Buffer.from(signature, "base64url");
  const hmac = () => {
    const mac = createHmac("sha256", secret).update(`${header}.${payload}`).digest();
    if (!timingSafeEqual(mac, expected)) throw new Error("bad mac");
  };
  const verify = () => tokens.verify(token, now);
  const jwt: number[] = [];
  const raw: number[] = [];
  await rate(verify, 300);
  await rate(hmac, 300);
  for (let round = 1; round <= options.rounds; round++) {
    raw.push(await rate(hmac, options.durationS * 1000));
    jwt.push(await rate(verify, options.durationS * 1000));
  }
  const j = median(jwt);
  const r = median(raw);
  console.log(`\nPairing token verification, one core, ${options.rounds} x ${options.durationS}s (medians)`);
  console.log(`  raw HMAC-SHA256 + compare (baseline) ${r.toFixed(0).padStart(9)} /s`);
  console.log(`  PairingTokens.verify (jose HS256)    ${j.toFixed(0).padStart(9)} /s   (${((100 * j) / r).toFixed(1)}% of raw)`);
}

export async function preparePlatform(dataDir: string, env: Record<string, string>) {
  const [http, markets, graphql, anvil, mcr2, altchain, provider] = await Promise.all(Array.from({ length: 7 }, freePort));
  const child = await startRole(["all"], {
    DATA_DIR: dataDir,
    HTTP_PORT: String(http),
    MARKETS_PORT: String(markets),
    GRAPHQL_PORT: String(graphql),
    ANVIL_PORT: String(anvil),
    MCR2_PORT: String(mcr2),
    ALTCHAIN_RPC_PORT: String(altchain),
    DEMO_PROVIDER_PORT: String(provider),
    RATE_LIMIT_MARKETS_PER_IP: "1000000000",
    ...env,
  }, 180_000);
  const api = `http://127.0.0.1:${markets}/api/v1`;
  const demo = JSON.parse(await readFile(path.join(dataDir, "demo.json"), "utf8"));
  const machine = demo.machines[0];
  const challenge = (await call(`${api}/machine-identity/challenges`, "POST", { identityRef: machine.did })).item;
  const signature = await new Wallet(machine.controllerPrivateKey).signMessage(challenge.message);
  const record = (await call(`${api}/machines`, "POST", { displayName: "bench", identityRef: machine.did, identityProof: { challengeId: challenge.challengeId, signature } })).item;
  const p = demo.markets.provider;
  await call(`${api}/machines/${record.id}/runtime-endpoints/${p.providerKey}`, "PUT", { endpointBaseUrl: p.url, authType: p.authType, authToken: p.authToken });
  const tokens: string[] = [];
  for (let i = 0; i < PAIRINGS; i++) {
    const wallet = Wallet.createRandom();
    const c = (await call(`${api}/machines/${record.id}/agent-pairings/challenges`, "POST", { agentAddress: wallet.address })).item;
    const pairing = (
      await call(`${api}/machines/${record.id}/agent-pairings`, "POST", {
        agentAddress: wallet.address,
        delegationPolicy: { allowedSkillKeys: ["oracle.price-feed"], perTransactionLimit: 1, dailySpendLimit: 1_000_000, currency: "USD" },
        agentProof: { challengeId: c.challengeId, signature: await wallet.signMessage(c.message) },
      })
    ).item;
    tokens.push(pairing.pairingToken);
  }
  return { child, api, machineId: record.id as string, tokens };
}

/** Journeys (create, intent, execute) per second with `connections` workers for `durationS`. */
async function journeys(api: string, machineId: string, tokens: string[], options: Options): Promise<Sample> {
  const search = (await call(`${api}/market/search`, "POST", { machineId, skillKey: "oracle.price-feed" })).item;
  const quote = { searchId: search.searchId, quoteId: search.quotes[0].id };
  const latencies: number[] = [];
  let failures = 0;
  const deadline = performance.now() + options.durationS * 1000;
  const worker = async (index: number) => {
    const headers = { "x-agent-pairing-token": tokens[index % tokens.length]! };
    while (performance.now() < deadline) {
      const start = performance.now();
      try {
        const order = (await call(`${api}/market/orders`, "POST", { machineId, ...quote, input: { pair: "ETH/USD" } }, headers)).item;
        await call(`${api}/market/orders/${order.id}/payment-intent`, "POST", {}, headers);
        await call(`${api}/market/orders/${order.id}/execute`, "POST", undefined, headers);
        latencies.push(performance.now() - start);
      } catch {
        failures += 1;
      }
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: options.connections }, (_, i) => worker(i)));
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (q: number) => Math.round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0);
  return { rps: latencies.length / seconds, p50: at(0.5), p99: at(0.99), non2xx: failures };
}

async function measure(label: string, dataDir: string, env: Record<string, string>, options: Options, processes: RoleProcess[]) {
  console.error(`orders on ${label}: starting a platform, binding a machine, pairing ${PAIRINGS} agents ...`);
  const platform = await preparePlatform(dataDir, env);
  processes.push(platform.child);
  await journeys(platform.api, platform.machineId, platform.tokens, { ...options, durationS: 2 });
  const orders: Sample[] = [];
  const read: Sample[] = [];
  for (let round = 1; round <= options.rounds; round++) {
    console.error(`round ${round}/${options.rounds}: orders (${label}) ...`);
    const r = await autocannon({ url: `${platform.api}/machines?limit=1`, connections: options.connections, duration: options.durationS });
    read.push({ rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx });
    orders.push(await journeys(platform.api, platform.machineId, platform.tokens, options));
  }
  console.log(`\nMarket orders create -> intent -> execute (demo provider), ${label}, ${options.connections} workers over ${PAIRINGS} pairings, ${options.rounds} x ${options.durationS}s (medians)`);
  const r = summarize("GET /api/v1/machines?limit=1 (stack)", read, 40);
  const o = summarize(`order journeys (3 writes + provider), ${label}`, orders, 40);
  console.log(`  journeys x 3 writes / stack read          ${((300 * o.rps) / r.rps).toFixed(1)}%`);
  await platform.child.stop();
}

export async function benchOrders(options: Options): Promise<void> {
  await benchJwt(options);
  const dataDir = await mkdtemp(path.join(os.tmpdir(), "bench-orders-"));
  const processes: RoleProcess[] = [];
  try {
    if (process.env.DATABASE_URL) {
      const database = await createPostgresDatabase();
      try {
        await measure("PostgreSQL", path.join(dataDir, "pg"), { DATABASE_URL: database.url }, options, processes);
      } finally {
        await database.drop();
      }
    } else {
      console.log("  (set DATABASE_URL to measure orders on PostgreSQL)");
    }
    await measure("PGlite", path.join(dataDir, "pglite"), { DATABASE_URL: "" }, options, processes);
  } finally {
    for (const child of processes.reverse()) await child.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  benchOrders({
    rounds: Number(process.env.BENCH_ROUNDS ?? 3),
    durationS: Number(process.env.BENCH_SECONDS ?? 5),
    connections: Number(process.env.BENCH_CONNECTIONS ?? 32),
  }).catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
