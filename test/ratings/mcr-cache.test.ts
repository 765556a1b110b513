/**
 * MCR caching (docs/mcr-scoring.md, "Caching") on the real chain: results are kept per machine, a new event for the
 * machine drops its entry as soon as the block watcher sees the block, MCR_CACHE_TTL=0 keeps nothing, and a degraded
 * answer (no FX rate) is never kept, so a rate that appears later is used on the next request.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { keccak256, toUtf8Bytes } from "ethers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addressEnvName, CONTRACT_NAMES } from "../../subgraphs/shared/config.js";
import { ChainReader } from "../../subgraphs/shared/chain/reader.js";
import { RatingsChain } from "../../subgraphs/ratings/chain/ratings-chain.js";
import { McrService } from "../../subgraphs/ratings/scoring/mcr.service.js";
import { FixedRates } from "../../subgraphs/ratings/scoring/fx.js";
import { systemClock } from "../../subgraphs/shared/clock.js";
import { rated, startRatingsPlatform, transact, type RatingsPlatform } from "./helpers.js";
import { get } from "../support/http.js";
import { PLATFORM_START_TIMEOUT_MS } from "../support/platform.js";
import { eventually } from "../support/wait.js";

let a: RatingsPlatform;
beforeAll(async () => {
  a = await startRatingsPlatform();
}, PLATFORM_START_TIMEOUT_MS);
afterAll(() => a?.close());

const score = async (p: RatingsPlatform, id: number) => (await get(`${p.http}/mcr/${rated(p, id).did}`)).json();

/** One activity event for a rated demo machine, submitted by the fleet operator. */
async function submitEvent(p: RatingsPlatform, machineId: number): Promise<void> {
  const timestamp = Math.floor(Date.now() / 1000) - 60;
  await transact(
    p,
    "EventRegistry",
    (events) =>
      events.submitEvent(machineId, 1, 1, "", timestamp, keccak256(toUtf8Bytes(`cache-test|${timestamp}`)), 2, 0, `0x${"00".repeat(32)}`, "0x"),
    p.demo.ratings.fleetOperator.privateKey,
  );
}

describe("the per-machine cache", () => {
  it("keeps a result: a trust override changes nothing until the machine's entry goes", async () => {
    expect(await score(a, 9)).toMatchObject({ mcr_score: 82, mcr: "A" });
    await transact(a, "AdminFlags", (flags) => flags.setTrustOverride(9, 100));
    expect(await score(a, 9)).toMatchObject({ mcr_score: 82, mcr: "A" });
    // Another machine's entry is computed fresh and sees its own state.
    expect(await score(a, 11)).toMatchObject({ mcr_score: 56 });
  });

  it("a new event for the machine drops its entry as soon as the block is seen", async () => {
    await submitEvent(a, 9);
    const fresh = await eventually(async () => {
      const body = await score(a, 9);
      return body.event_count === 51 ? body : undefined;
    });
    // Recomputed: the override (trust 30) now counts too.
    expect(fresh).toMatchObject({ mcr_score: 100, mcr: "AAA", event_count: 51, activity_event_count: 1 });
    // A new event for another machine leaves this entry alone.
    await transact(a, "AdminFlags", (flags) => flags.clearTrustOverride(9));
    await submitEvent(a, 12);
    await eventually(async () => ((await score(a, 12)).event_count === 21 ? true : undefined));
    expect(await score(a, 9)).toMatchObject({ mcr_score: 100 });
  });

  it("MCR_CACHE_TTL=0 keeps nothing: each read sees the chain as it is", async () => {
    const chain = a.platform.chain!;
    const reader = new ChainReader({ rpcUrl: chain.rpcUrl, addresses: chain.addresses, chainId: chain.chainId, requestTimeoutMs: 5000, pollIntervalMs: 50 });
    await reader.start();
    try {
      const service = new McrService(new RatingsChain(reader, chain.addresses), new FixedRates(), systemClock, 0, () => {});
      expect((await service.score(8n)).mcrScore).toBe(85);
      await transact(a, "AdminFlags", (flags) => flags.setTrustOverride(8, 0));
      await reader.syncHead();
      expect((await service.score(8n)).mcrScore).toBe(70);
    } finally {
      reader.close();
    }
  });
});

describe("degraded answers (no FX rate) are never cached", () => {
  let b: RatingsPlatform;
  let dir: string;
  let ratesFile: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "fx-"));
    ratesFile = path.join(dir, "rates.json");
    await writeFile(ratesFile, JSON.stringify({ GBP: { "2026-01-01": 1.27 } }));
    // Instance B reads A's chain with a dated rate file that lacks EUR (machine 9 earns EUR).
    const addresses = Object.fromEntries(CONTRACT_NAMES.map((name) => [addressEnvName(name), a.platform.chain!.addresses[name]!]));
    b = await startRatingsPlatform({ ...addresses, CHAIN_RPC_URL: a.platform.chain!.rpcUrl, MCR_FX_SOURCE: `file:${ratesFile}` });
  }, PLATFORM_START_TIMEOUT_MS);
  afterAll(async () => {
    await b?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("unsupported currency in the window: degraded; the rate that appears later is used at once", async () => {
    const degraded = (await get(`${b.http}/mcr/${rated(a, 9).did}`)).json();
    expect(degraded).toMatchObject({ mcr_degraded: true, total_revenue: 750_000 });
    const days: Record<string, number> = {};
    for (let d = 0; d < 60; d++) days[new Date(Date.now() - d * 86_400_000).toISOString().slice(0, 10)] = 1.08;
    await writeFile(ratesFile, JSON.stringify({ EUR: days }));
    const repaired = (await get(`${b.http}/mcr/${rated(a, 9).did}`)).json();
    expect(repaired).toMatchObject({ mcr_degraded: false, total_revenue: 1_500_000 });
  });
});
