/**
 * Scoring a machine with 10,000 events against the local chain (anvil): cold (a fresh chain reader and service, so
 * all 100 pages of `getEvents` are read and decoded, plus bond, override and flag) and warm (the service's cache),
 * each beside baselines from the same run: one `eth_call` round trip, and the pure scoring of the same events in
 * memory (no chain). `BENCH_MCR_BEFORE=<dir>` also scores with another checkout's reader, ratings chain and service,
 * in the same process and rounds against the same chain (order alternated per round), for before/after figures:
 * `BENCH_MCR_BEFORE=<dir> npx tsx test/bench/mcr-scoring.ts [rounds]`.
 */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { NonceManager, Wallet } from "ethers";
import { loadConfig } from "../../subgraphs/shared/config.js";
import { connectContract } from "../../subgraphs/shared/chain/contracts.js";
import { DEV_MIN_BOND, waitFor } from "../../subgraphs/shared/chain/deploy.js";
import { DEV_DEPLOYER_KEY } from "../../subgraphs/shared/chain/dev-keys.js";
import { openPlatformChain } from "../../subgraphs/shared/chain/embedded.js";
import { ChainReader } from "../../subgraphs/shared/chain/reader.js";
import { createProvider } from "../../subgraphs/shared/chain/rpc.js";
import { systemClock } from "../../subgraphs/shared/clock.js";
import { RatingsChain } from "../../subgraphs/ratings/chain/ratings-chain.js";
import { McrService } from "../../subgraphs/ratings/scoring/mcr.service.js";
import { FixedRates } from "../../subgraphs/ratings/scoring/fx.js";
import { scoreMachine } from "../../subgraphs/ratings/scoring/mcr-score.js";
import { median } from "./stats.js";

export const EVENTS = 10_000;
const PER_TX = 100;
const WARM_CALLS = 10_000;

/** The classes a cold score goes through, from this checkout or from another one (`BENCH_MCR_BEFORE`). */
interface Checkout {
  label: string;
  ChainReader: typeof ChainReader;
  RatingsChain: typeof RatingsChain;
  McrService: typeof McrService;
}

const thisCheckout: Checkout = { label: "this checkout", ChainReader, RatingsChain, McrService };

/** The same classes loaded from another checkout's sources (tsx compiles them), for before/after in one process. */
async function loadCheckout(dir: string): Promise<Checkout> {
  const load = (file: string) => import(pathToFileURL(path.join(dir, file)).href);
  const [reader, ratings, mcr] = await Promise.all([
    load("subgraphs/shared/chain/reader.ts"),
    load("subgraphs/ratings/chain/ratings-chain.ts"),
    load("subgraphs/ratings/scoring/mcr.service.ts"),
  ]);
  return { label: `before (${dir})`, ChainReader: reader.ChainReader, RatingsChain: ratings.RatingsChain, McrService: mcr.McrService };
}

interface Figures {
  cold: number[];
  coldCpu: number[];
  warmMicros: number;
}

export async function benchMcrScoring(rounds: number, beforeDir = process.env.BENCH_MCR_BEFORE): Promise<void> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), "mcr-bench-"));
  const config = loadConfig({ DATA_DIR: dataDir, ANVIL_PORT: "0", SEED_DEMO: "0", LOG_LEVEL: "silent" });
  const chain = await openPlatformChain(config);
  const provider = createProvider(chain.rpcUrl, { chainId: chain.chainId, timeoutMs: 60_000 });
  const checkouts = [thisCheckout, ...(beforeDir ? [await loadCheckout(path.resolve(beforeDir))] : [])];
  const figures = new Map<Checkout, Figures>(checkouts.map((c) => [c, { cold: [], coldCpu: [], warmMicros: 0 }]));
  try {
    await seedHistory(provider, chain.addresses as Record<string, string>);
    const roundTrip: number[] = [];
    const pure: number[] = [];
    for (let round = 0; round < Math.max(3, rounds); round++) {
      let start = performance.now();
      await provider.send("eth_call", [{ to: chain.addresses.EventRegistry, data: "0x" }, "latest"]).catch(() => {});
      roundTrip.push(performance.now() - start);
      // Alternating order (after, before, before, after, ...) so neither always runs first.
      for (const checkout of round % 2 === 0 ? checkouts : [...checkouts].reverse()) {
        const f = figures.get(checkout)!;
        const reader = new checkout.ChainReader({ rpcUrl: chain.rpcUrl, addresses: chain.addresses, chainId: chain.chainId, requestTimeoutMs: 30_000, pollIntervalMs: 60_000 });
        await reader.start();
        const ratings = new checkout.RatingsChain(reader, chain.addresses);
        const service = new checkout.McrService(ratings, new FixedRates(), systemClock, 3600, () => {});
        const cpu = process.cpuUsage();
        start = performance.now();
        const score = await service.score(1n);
        f.cold.push(performance.now() - start);
        const used = process.cpuUsage(cpu);
        f.coldCpu.push((used.user + used.system) / 1000);
        if (score.eventCount !== EVENTS) throw new Error(`expected ${EVENTS} events, scored ${score.eventCount}`);
        if (checkout === thisCheckout) {
          const events = await ratings.events(1n, 0, EVENTS);
          start = performance.now();
          scoreMachine({ events, bonded: true, trustOverride: null, flaggedAt: null, nowSeconds: Math.floor(Date.now() / 1000), rates: new FixedRates() });
          pure.push(performance.now() - start);
        }
        start = performance.now();
        for (let i = 0; i < WARM_CALLS; i++) await service.score(1n);
        f.warmMicros = ((performance.now() - start) * 1000) / WARM_CALLS;
        reader.close();
      }
    }
    const call = median(roundTrip);
    const load = os.loadavg().map((x) => x.toFixed(1)).join(" / ");
    console.log(`\nMCR of a machine with ${EVENTS} events on the local chain (medians of ${roundTrip.length} rounds; load average ${load})`);
    for (const [checkout, f] of figures) {
      const cold = median(f.cold);
      console.log(`  ${checkout.label}`);
      console.log(`    cold (100 getEvents pages + bond, flags; decoded, scored)  ${cold.toFixed(1)} ms = ${(cold / call).toFixed(0)} eth_calls, ${median(f.coldCpu).toFixed(1)} ms CPU here   (goal <= 40 eth_calls)`);
      console.log(`    warm (cached)                                              ${f.warmMicros.toFixed(2)} us   (target < 1 ms)`);
    }
    console.log(`  baseline: one eth_call round trip                            ${call.toFixed(2)} ms`);
    console.log(`  baseline: scoring the same events in memory                  ${median(pure).toFixed(1)} ms`);
  } finally {
    provider.destroy();
    await chain.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** Machine 1, bonded, with 10,000 revenue events over half a year, in batches of 100 per transaction. */
export async function seedHistory(provider: ReturnType<typeof createProvider>, addresses: Record<string, string>): Promise<void> {
  const admin = new NonceManager(new Wallet(DEV_DEPLOYER_KEY, provider));
  const identity = connectContract("IdentityRegistry", addresses, admin);
  const events = connectContract("EventRegistry", addresses, admin);
  await waitFor(identity.registerAt(1, Wallet.createRandom().address, Wallet.createRandom().address, { value: DEV_MIN_BOND }));
  const now = (await provider.getBlock("latest"))!.timestamp;
  const zero = `0x${"00".repeat(32)}`;
  console.error(`seeding ${EVENTS} events ...`);
  for (let batch = 0; batch < EVENTS / PER_TX; batch++) {
    const inputs = Array.from({ length: PER_TX }, (_, i) => {
      const n = batch * PER_TX + i;
      return { machineId: 1, eventType: 0, value: 1000 + (n % 97), currency: "USD", timestamp: now - (EVENTS - n) * 1500, dataHash: zero, trustLevel: 2, sourceChainId: 0, sourceTxHash: zero, metadata: "0x" };
    });
    await waitFor(events.batchSubmitEvents(inputs, { gasLimit: 29_000_000 }));
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  await benchMcrScoring(Number(process.argv[2] ?? 5));
}
