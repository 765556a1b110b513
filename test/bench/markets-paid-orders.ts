/**
 * Document 3 payments: market orders per second through create -> payment intent (wallet) -> payment proof (rpc:
 * the receipt and Transfer log read from the embedded anvil) -> execute (the demo provider), beside the same
 * platform's not-required journeys (create -> intent -> execute) and its GET /machines?limit=1 in the same run,
 * alternating rounds. Each paid order needs its own transaction (a hash pays one payment), so the transfers are
 * mined before the clock starts. PostgreSQL when DATABASE_URL is set (a throw-away database), else PGlite.
 *
 * `npx tsx test/bench/markets-paid-orders.ts` (BENCH_ROUNDS, BENCH_SECONDS, BENCH_CONNECTIONS, BENCH_PAID_TRANSFERS).
 */
import autocannon from "autocannon";
import { Contract, NonceManager, Wallet } from "ethers";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { contractInterface } from "../../subgraphs/shared/chain/artifacts.js";
import { createProvider } from "../../subgraphs/shared/chain/rpc.js";
import { createPostgresDatabase } from "../support/db.js";
import { preparePlatform } from "./markets-orders.js";
import { summarize, type Sample } from "./stats.js";

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

async function journeys(api: string, machineId: string, tokens: string[], options: Options, paid: { hashes: string[]; payer: string } | null): Promise<Sample> {
  const search = (await call(`${api}/market/search`, "POST", { machineId, skillKey: "oracle.price-feed" })).item;
  const quote = { searchId: search.searchId, quoteId: search.quotes[0].id };
  const latencies: number[] = [];
  let failures = 0;
  const deadline = performance.now() + options.durationS * 1000;
  const worker = async (index: number) => {
    const headers = { "x-agent-pairing-token": tokens[index % tokens.length]! };
    while (performance.now() < deadline) {
      const txHash = paid ? paid.hashes.pop() : undefined;
      if (paid && !txHash) throw new Error("out of transfers: raise BENCH_PAID_TRANSFERS");
      const start = performance.now();
      try {
        const order = (await call(`${api}/market/orders`, "POST", { machineId, ...quote, input: { pair: "ETH/USD" } }, headers)).item;
        await call(`${api}/market/orders/${order.id}/payment-intent`, "POST", paid ? { rail: "wallet" } : {}, headers);
        if (paid) await call(`${api}/market/orders/${order.id}/payment-proof`, "POST", { mode: "rpc", txHash, from: paid.payer }, headers);
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

export async function benchPaidOrders(options: Options): Promise<void> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), "bench-paid-orders-"));
  const database = process.env.DATABASE_URL ? await createPostgresDatabase() : null;
  const label = database ? "PostgreSQL" : "PGlite";
  try {
    console.error(`paid orders on ${label}: starting a platform ...`);
    const platform = await preparePlatform(dataDir, { DATABASE_URL: database?.url ?? "" });
    try {
      const demo = JSON.parse(await readFile(path.join(dataDir, "demo.json"), "utf8"));
      const provider = createProvider(demo.rpcUrl, { chainId: demo.chainId, timeoutMs: 30_000 });
      const agent = new NonceManager(new Wallet(demo.payments.agents[0].privateKey, provider));
      const token = new Contract(demo.payments.stablecoin.address, contractInterface("TestStablecoin"), agent);
      const count = Number(process.env.BENCH_PAID_TRANSFERS ?? 1500);
      console.error(`mining ${count} transfers of 10000 raw units to the payee ...`);
      const sent = [];
      for (let i = 0; i < count; i++) sent.push(await token.transfer(demo.payments.payee.address, 10_000n));
      const hashes = sent.map((tx) => tx.hash as string);
      await provider.send("evm_mine", []);
      provider.destroy();
      const paid = { hashes, payer: demo.payments.agents[0].address as string };
      await journeys(platform.api, platform.machineId, platform.tokens, { ...options, durationS: 2 }, paid);
      const read: Sample[] = [];
      const free: Sample[] = [];
      const wallet: Sample[] = [];
      for (let round = 1; round <= options.rounds; round++) {
        console.error(`round ${round}/${options.rounds} ...`);
        const r = await autocannon({ url: `${platform.api}/machines?limit=1`, connections: options.connections, duration: options.durationS });
        read.push({ rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx });
        free.push(await journeys(platform.api, platform.machineId, platform.tokens, options, null));
        wallet.push(await journeys(platform.api, platform.machineId, platform.tokens, options, paid));
      }
      console.log(`\nPaid market orders, ${label}, ${options.connections} workers, ${options.rounds} x ${options.durationS}s (medians)`);
      const s = summarize("GET /api/v1/machines?limit=1 (stack)", read, 44);
      const f = summarize("create -> intent -> execute (not-required)", free, 44);
      const w = summarize("create -> intent -> proof (rpc) -> execute", wallet, 44);
      console.log(`  wallet journeys / not-required journeys     ${((100 * w.rps) / f.rps).toFixed(1)}%   (stack read ${s.rps.toFixed(0)} req/s)`);
    } finally {
      await platform.child.stop();
    }
  } finally {
    await database?.drop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  benchPaidOrders({
    rounds: Number(process.env.BENCH_ROUNDS ?? 3),
    durationS: Number(process.env.BENCH_SECONDS ?? 5),
    connections: Number(process.env.BENCH_CONNECTIONS ?? 32),
  }).catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
