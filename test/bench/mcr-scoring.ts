/**
 * Scoring a machine with 10,000 events against the local chain (anvil): cold (a fresh chain reader and service, so
 * all 100 pages of `getEvents` are read and decoded, plus bond, override and flag) and warm (the service's cache),
 * each beside baselines from the same run: one `eth_call` round trip, and the pure scoring of the same events in
 * memory (no chain).
 */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
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

const EVENTS = 10_000;
const PER_TX = 100;
const WARM_CALLS = 10_000;

export async function benchMcrScoring(rounds: number): Promise<void> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), "mcr-bench-"));
  const config = loadConfig({ DATA_DIR: dataDir, ANVIL_PORT: "0", SEED_DEMO: "0", LOG_LEVEL: "silent" });
  const chain = await openPlatformChain(config);
  const provider = createProvider(chain.rpcUrl, { chainId: chain.chainId, timeoutMs: 60_000 });
  try {
    await seedHistory(provider, chain.addresses as Record<string, string>);
    const newReader = async () => {
      const reader = new ChainReader({ rpcUrl: chain.rpcUrl, addresses: chain.addresses, chainId: chain.chainId, requestTimeoutMs: 30_000, pollIntervalMs: 60_000 });
      await reader.start();
      return reader;
    };
    const cold: number[] = [];
    const roundTrip: number[] = [];
    const pure: number[] = [];
    let warmMicros = 0;
    for (let round = 0; round < Math.max(3, rounds); round++) {
      const reader = await newReader();
      const ratings = new RatingsChain(reader, chain.addresses);
      let start = performance.now();
      await provider.send("eth_call", [{ to: chain.addresses.EventRegistry, data: "0x" }, "latest"]).catch(() => {});
      roundTrip.push(performance.now() - start);
      const service = new McrService(ratings, new FixedRates(), systemClock, 3600, () => {});
      start = performance.now();
      const score = await service.score(1n);
      cold.push(performance.now() - start);
      if (score.eventCount !== EVENTS) throw new Error(`expected ${EVENTS} events, scored ${score.eventCount}`);
      const events = await ratings.events(1n, 0, EVENTS);
      start = performance.now();
      scoreMachine({ events, bonded: true, trustOverride: null, flaggedAt: null, nowSeconds: Math.floor(Date.now() / 1000), rates: new FixedRates() });
      pure.push(performance.now() - start);
      start = performance.now();
      for (let i = 0; i < WARM_CALLS; i++) await service.score(1n);
      warmMicros = ((performance.now() - start) * 1000) / WARM_CALLS;
      reader.close();
    }
    console.log(`\nMCR of a machine with ${EVENTS} events on the local chain (medians of ${cold.length} rounds)`);
    console.log(`  cold (100 getEvents pages + bond, flags; decoded, scored)  ${median(cold).toFixed(1)} ms   (target < 300 ms)`);
    console.log(`  warm (cached)                                              ${warmMicros.toFixed(2)} us   (target < 1 ms)`);
    console.log(`  baseline: one eth_call round trip                          ${median(roundTrip).toFixed(2)} ms`);
    console.log(`  baseline: scoring the same events in memory                ${median(pure).toFixed(1)} ms`);
  } finally {
    provider.destroy();
    await chain.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** Machine 1, bonded, with 10,000 revenue events over half a year, in batches of 100 per transaction. */
async function seedHistory(provider: ReturnType<typeof createProvider>, addresses: Record<string, string>): Promise<void> {
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
