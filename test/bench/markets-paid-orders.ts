/**
 * Document 3 payments: market orders per second through create -> payment intent (wallet) -> payment proof (rpc:
 * the receipt and Transfer log read from the embedded anvil) -> execute (the demo provider), beside the same
 * platform's not-required journeys (create -> intent -> execute) and its GET /machines?limit=1 in the same run,
 * alternating rounds. Each paid order needs its own transfer (one transfer pays one payment) sent by the paying
 * pairing's agent (the demo payment agents are paired and pay their own orders), so the transfers are mined before the
 * clock starts. PostgreSQL when DATABASE_URL is set (a throw-away database), else PGlite.
 *
 * `npx tsx test/bench/markets-paid-orders.ts` (BENCH_ROUNDS, BENCH_SECONDS, BENCH_CONNECTIONS, BENCH_PAID_TRANSFERS).
 */
import autocannon from "autocannon";
import { Contract, NonceManager, Wallet } from "ethers";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { contractInterface } from "../../subgraphs/shared/chain/artifacts.js";
import { createProvider } from "../../subgraphs/shared/chain/rpc.js";
import { createPostgresDatabase } from "../support/db.js";
import { runStandalone } from "./load.js";
import { journeys, preparePlatform } from "./markets-orders.js";
import { autocannonSample, summarize, type BenchOptions, type Sample } from "./stats.js";

export async function benchPaidOrders(options: BenchOptions): Promise<void> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), "bench-paid-orders-"));
  const database = process.env.DATABASE_URL ? await createPostgresDatabase() : null;
  const label = database ? "PostgreSQL" : "PGlite";
  try {
    console.error(`paid orders on ${label}: starting a platform ...`);
    const platform = await preparePlatform(dataDir, { DATABASE_URL: database?.url ?? "" }, (demo) => demo.payments.agents.map((a: { privateKey: string }) => a.privateKey));
    try {
      const demo = platform.demo;
      const provider = createProvider(demo.rpcUrl, { chainId: demo.chainId, timeoutMs: 30_000 });
      const count = Number(process.env.BENCH_PAID_TRANSFERS ?? 1500);
      console.error(`mining ${count} transfers of 10000 raw units to the payee from the paired agents ...`);
      const hashes: string[][] = [];
      for (const [i, account] of (demo.payments.agents as { privateKey: string }[]).entries()) {
        const token = new Contract(demo.payments.stablecoin.address, contractInterface("TestStablecoin"), new NonceManager(new Wallet(account.privateKey, provider)));
        hashes[i] = [];
        for (let n = 0; n < Math.ceil(count / platform.tokens.length); n++) hashes[i]!.push((await token.transfer(demo.payments.payee.address, 10_000n)).hash as string);
      }
      await provider.send("evm_mine", []);
      provider.destroy();
      const paid = { hashes };
      await journeys(platform.api, platform.machineId, platform.tokens, { ...options, durationS: 2 }, paid);
      const read: Sample[] = [];
      const free: Sample[] = [];
      const wallet: Sample[] = [];
      for (let round = 1; round <= options.rounds; round++) {
        console.error(`round ${round}/${options.rounds} ...`);
        const r = await autocannon({ url: `${platform.api}/machines?limit=1`, connections: options.connections, duration: options.durationS });
        read.push(autocannonSample(r));
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

runStandalone(import.meta.url, benchPaidOrders);
