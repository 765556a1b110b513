/**
 * Document 3 orders: (1) pairing-token verifications per second in process (PairingTokens.verify: jose HS256,
 * issuer, audience, expiry, claim checks on a token's first use; clock and claim checks on a remembered one) beside
 * the raw HMAC-SHA256 of the same signing input, alternating rounds in the same run; (2) market orders per second through create -> payment intent (not-required) -> execute (the demo
 * provider) over the REST shim, with the delegation policy on (allow list, per-transaction and daily limits summed in
 * the database), on PostgreSQL when DATABASE_URL is set (a throw-away database) and on PGlite; beside the same
 * stack's GET /machines?limit=1 in the same run, with each journey's CPU by process (the platform, PostgreSQL's server
 * processes, this load generator) and the most journeys PostgreSQL's CPU alone would allow on the machine's cores.
 * Each worker is one agent journey at a time; the workers share PAIRINGS pairings (orders of one pairing serialise on
 * its row lock, by design).
 *
 * Standalone: `npx tsx test/bench/markets-orders.ts` (BENCH_ROUNDS, BENCH_SECONDS, BENCH_CONNECTIONS).
 */
import autocannon from "autocannon";
import { createHmac, timingSafeEqual } from "node:crypto";
import { Wallet } from "ethers";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { PairingTokens, VERIFIED_TOKENS_LIMIT } from "../../subgraphs/markets/orders/pairing.token.js";
import type { RoleProcess } from "../support/processes.js";
import { call, closedLoop, onPostgres, runStandalone, startMarketsPlatform } from "./load.js";
import { autocannonSample, CORES, median, splitPer, startCpuSplit, summarize, type BenchOptions, type CpuSplit, type Sample } from "./stats.js";

const PAIRINGS = 8;

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

export async function benchJwt(options: BenchOptions): Promise<void> {
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
  // A token's first verification runs jose; later ones of the same text are remembered. Cycling through one more
  // token than are remembered makes every verification a first one.
  const fresh: string[] = [];
  for (let i = 0; i <= VERIFIED_TOKENS_LIMIT; i++) {
    fresh.push((await tokens.issue({ machineId: "mach_0", pairingId: "pair_aaaaaaaaaaaaaaaa", sessionId: "sess_x", agentAddress: "0x00000000000000000000000000000000000000a1", agentDid: null, delegationPolicyHash: "ab".repeat(32), jti: `stok_${i}` }, now)).token);
  }
  let next = 0;
  const verify = () => tokens.verify(fresh[next++ % fresh.length]!, now);
  const remembered = () => tokens.verify(token, now);
  const jwt: number[] = [];
  const raw: number[] = [];
  const again: number[] = [];
  await rate(verify, 300);
  await rate(hmac, 300);
  for (let round = 1; round <= options.rounds; round++) {
    raw.push(await rate(hmac, options.durationS * 1000));
    jwt.push(await rate(verify, options.durationS * 1000));
    again.push(await rate(remembered, options.durationS * 1000));
  }
  const j = median(jwt);
  const r = median(raw);
  console.log(`\nPairing token verification, one core, ${options.rounds} x ${options.durationS}s (medians)`);
  console.log(`  raw HMAC-SHA256 + compare (baseline) ${r.toFixed(0).padStart(9)} /s`);
  console.log(`  PairingTokens.verify (jose HS256)    ${j.toFixed(0).padStart(9)} /s   (${((100 * j) / r).toFixed(1)}% of raw; a token's first use)`);
  console.log(`  PairingTokens.verify, remembered     ${median(again).toFixed(0).padStart(9)} /s   (the same token again: clock and claim checks)`);
}

/**
 * Role `all` with the demo provider, demo machine 1 bound with its provider endpoint, and PAIRINGS agents paired (or
 * the agents `keys` names, e.g. funded demo agents that pay their own orders).
 */
export async function preparePlatform(dataDir: string, env: Record<string, string>, keys: (demo: any) => string[] = () => [], nodeFlags: string[] = []) {
  const { child, api, demo, machineId, asMachine } = await startMarketsPlatform(dataDir, env, true, nodeFlags);
  const p = demo.markets.provider;
  await call(`${api}/machines/${machineId}/runtime-endpoints/${p.providerKey}`, "PUT", { endpointBaseUrl: p.url, authType: p.authType, authToken: p.authToken }, asMachine);
  const tokens: string[] = [];
  const agents = keys(demo).map((key) => new Wallet(key));
  for (let i = 0; i < (agents.length || PAIRINGS); i++) {
    const wallet = agents[i] ?? Wallet.createRandom();
    const c = (await call(`${api}/machines/${machineId}/agent-pairings/challenges`, "POST", { agentAddress: wallet.address })).item;
    const pairing = (
      await call(`${api}/machines/${machineId}/agent-pairings`, "POST", {
        agentAddress: wallet.address,
        delegationPolicy: { allowedSkillKeys: ["oracle.price-feed"], perTransactionLimit: 1, dailySpendLimit: 1_000_000, currency: "USD" },
        agentProof: { challengeId: c.challengeId, signature: await wallet.signMessage(c.message) },
      }, asMachine)
    ).item;
    tokens.push(pairing.pairingToken);
  }
  return { child, api, demo, machineId, tokens };
}

/**
 * Transactions to pay wallet orders with (one transfer pays one payment): `hashes[i]` were sent by the agent of
 * pairing token i, the only address whose transfer pays that pairing's orders.
 */
export interface PaidTransfers {
  hashes: string[][];
}

/**
 * Journeys per second with `connections` workers for `durationS`: create, intent and execute (not-required), or with
 * `paid` create, wallet intent, rpc payment proof (one mined transfer each) and execute.
 */
export async function journeys(api: string, machineId: string, tokens: string[], options: BenchOptions, paid: PaidTransfers | null = null): Promise<Sample> {
  // Search is a machine's or a paired agent's (its credential first): the first pairing searches.
  const search = (await call(`${api}/market/search`, "POST", { machineId, skillKey: "oracle.price-feed" }, { "x-agent-pairing-token": tokens[0]! })).item;
  const quote = { searchId: search.searchId, quoteId: search.quotes[0].id };
  return closedLoop(options, (index) => {
    const headers = { "x-agent-pairing-token": tokens[index % tokens.length]! };
    const txHash = paid ? paid.hashes[index % tokens.length]!.pop() : undefined;
    if (paid && !txHash) throw new Error("out of transfers: raise BENCH_PAID_TRANSFERS");
    return async () => {
      const order = (await call(`${api}/market/orders`, "POST", { machineId, ...quote, input: { pair: "ETH/USD" } }, headers)).item;
      await call(`${api}/market/orders/${order.id}/payment-intent`, "POST", paid ? { rail: "wallet" } : {}, headers);
      if (paid) await call(`${api}/market/orders/${order.id}/payment-proof`, "POST", { mode: "rpc", txHash }, headers);
      await call(`${api}/market/orders/${order.id}/execute`, "POST", undefined, headers);
    };
  });
}

async function measure(label: string, dataDir: string, env: Record<string, string>, options: BenchOptions, processes: RoleProcess[]) {
  console.error(`orders on ${label}: starting a platform, binding a machine, pairing ${PAIRINGS} agents ...`);
  const platform = await preparePlatform(dataDir, env);
  processes.push(platform.child);
  await journeys(platform.api, platform.machineId, platform.tokens, { ...options, durationS: 2 });
  const orders: Sample[] = [];
  const read: Sample[] = [];
  const split: CpuSplit[] = [];
  for (let round = 1; round <= options.rounds; round++) {
    console.error(`round ${round}/${options.rounds}: orders (${label}) ...`);
    const r = await autocannon({ url: `${platform.api}/machines?limit=1`, connections: options.connections, duration: options.durationS });
    read.push(autocannonSample(r));
    const counting = startCpuSplit(platform.child.child.pid);
    const sample = await journeys(platform.api, platform.machineId, platform.tokens, options);
    const used = counting();
    const n = sample.rps * options.durationS;
    orders.push(sample);
    split.push(splitPer(used, n));
  }
  console.log(`\nMarket orders create -> intent -> execute (demo provider), ${label}, ${options.connections} workers over ${PAIRINGS} pairings, ${options.rounds} x ${options.durationS}s (medians)`);
  const r = summarize("GET /api/v1/machines?limit=1 (stack)", read, 40);
  const o = summarize(`order journeys (3 writes + provider), ${label}`, orders, 40);
  console.log(`  journeys x 3 writes / stack read          ${((300 * o.rps) / r.rps).toFixed(1)}%   (goal >= 50%, p99 <= 500 ms)`);
  const of = (part: keyof CpuSplit) => median(split.map((x) => x[part]));
  const server = label === "PostgreSQL" ? `, PostgreSQL ${of("postgres").toFixed(2)} ms` : " (the database in it)";
  console.log(`  CPU per journey: platform ${of("platform").toFixed(2)} ms${server}, load generator ${of("generator").toFixed(2)} ms`);
  if (label === "PostgreSQL" && of("postgres") > 0) {
    // The database's own work per journey, on every core of the machine and nothing else: the most journeys it allows.
    const ceiling = (CORES * 1000) / of("postgres");
    console.log(`  PostgreSQL's CPU alone on ${CORES} cores: at most ${ceiling.toFixed(0)} journeys/s = ${((300 * ceiling) / r.rps).toFixed(1)}% of the stack read`);
  }
  await platform.child.stop();
}

export async function benchOrders(options: BenchOptions): Promise<void> {
  await benchJwt(options);
  const dataDir = await mkdtemp(path.join(os.tmpdir(), "bench-orders-"));
  const processes: RoleProcess[] = [];
  try {
    await onPostgres("  (set DATABASE_URL to measure orders on PostgreSQL)", (env) => measure("PostgreSQL", path.join(dataDir, "pg"), env, options, processes));
    await measure("PGlite", path.join(dataDir, "pglite"), { DATABASE_URL: "" }, options, processes);
  } finally {
    for (const child of processes.reverse()) await child.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

runStandalone(import.meta.url, benchOrders);
