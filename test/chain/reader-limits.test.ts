/**
 * The chain reader cannot be made to flood the node: at most CHAIN_MAX_IN_FLIGHT requests (and sockets) at once,
 * however many reads arrive together, and the readiness probe runs once for any number of callers within a second.
 * A TCP proxy in front of the real anvil node counts the connections and JSON-RPC requests the reader makes.
 */
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChainReader } from "../../subgraphs/shared/chain/reader.js";
import { removeDir, startSeededChain, tempDataDir, type SeededChain } from "./helpers.js";
import { manualClock } from "../support/clock.js";
import { countingProxy, type CountingProxy } from "../support/proxy.js";
import { PLATFORM_TEST_TIMEOUT_MS } from "../support/timeouts.js";

let dataDir: string;
let seeded: SeededChain;
let proxy: CountingProxy;
let reader: ChainReader;
/** The reader's clock: the probe's one-second reuse is crossed by moving it, not by sleeping. */
const clock = manualClock();

beforeAll(async () => {
  dataDir = tempDataDir();
  seeded = await startSeededChain(dataDir);
  proxy = await countingProxy(seeded.chain.rpcUrl);
  reader = new ChainReader({
    rpcUrl: proxy.url,
    addresses: seeded.chain.addresses,
    chainId: seeded.chain.chainId,
    // The cap is under test here, not the deadline (which covers the wait for a slot): 2,000 reads through 4 slots
    // took over 10 s on a loaded machine and failed as chain unavailable. This deadline only catches a hang.
    requestTimeoutMs: PLATFORM_TEST_TIMEOUT_MS,
    // Manual head updates only: the watcher's polls would blur the counts.
    pollIntervalMs: 3_600_000,
    maxInFlight: 4,
    clock,
  });
  await reader.start();
}, 120_000);
afterAll(async () => {
  reader?.close();
  await proxy?.close();
  await seeded?.close();
  removeDir(dataDir);
});

describe("in-flight cap", () => {
  it("2,000 distinct reads at once use at most CHAIN_MAX_IN_FLIGHT connections and all succeed", async () => {
    proxy.reset();
    const reads = Array.from({ length: 2000 }, (_, i) => reader.callView("MachineRegistry", "getMachine", [BigInt(i + 1)]));
    // While the burst is under way the reader never has more than 4 requests out.
    expect(reader.inFlight.running).toBeLessThanOrEqual(4);
    const results = await Promise.all(reads);
    expect(results).toHaveLength(2000);
    expect(results[0]![0].exists).toBe(true);
    expect(proxy.requests.get("eth_call")).toBe(2000);
    expect(proxy.peakConnections).toBeLessThanOrEqual(4);
    // Keep-alive: the 2,000 requests shared a handful of sockets instead of opening one each.
    expect(proxy.connections).toBeLessThanOrEqual(4);
  });

  it("a read waiting for a slot past its deadline fails as chain unavailable without being sent", async () => {
    const impatient = new ChainReader({
      rpcUrl: proxy.url,
      addresses: seeded.chain.addresses,
      chainId: seeded.chain.chainId,
      requestTimeoutMs: 1,
      pollIntervalMs: 3_600_000,
      maxInFlight: 1,
    });
    try {
      const outcomes = await Promise.allSettled(Array.from({ length: 50 }, (_, i) => impatient.callView("MachineRegistry", "getMachine", [BigInt(i + 1)])));
      const failed = outcomes.filter((outcome) => outcome.status === "rejected");
      expect(failed.length).toBeGreaterThan(0);
      for (const outcome of failed) expect((outcome as PromiseRejectedResult).reason.constructor.name).toBe("ChainUnavailableError");
      expect(impatient.inFlight.running).toBeLessThanOrEqual(1);
    } finally {
      impatient.close();
    }
  });
});

describe("readiness probe", () => {
  it("1,000 concurrent probes make one probe's requests (one head check, six contract calls)", async () => {
    clock.advance(1000); // any earlier answer is past its reuse
    proxy.reset();
    const probes = await Promise.all(Array.from({ length: 1000 }, () => reader.probe()));
    expect(new Set(probes).size).toBe(1);
    expect(probes[0]!.rpc_connected).toBe(true);
    expect(proxy.requests.get("eth_blockNumber")).toBe(1);
    expect(proxy.requests.get("eth_call")).toBe(6);
  });

  it("a probe within a second of the last answer reuses it; after that a new probe runs", async () => {
    clock.advance(1000);
    await reader.probe();
    proxy.reset();
    await reader.probe();
    expect(proxy.requests.size).toBe(0);
    clock.advance(999);
    await reader.probe();
    expect(proxy.requests.size).toBe(0);
    clock.advance(1);
    await reader.probe();
    expect(proxy.requests.get("eth_blockNumber")).toBe(1);
  });
});
