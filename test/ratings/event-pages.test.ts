/**
 * `getEvents` pages as anvil answers them: RatingsChain.events (one page through the reader's cache, or pages in
 * JSON-RPC batches decoded as they arrive) gives exactly what ethers' general ABI decoder reads from the same pages at
 * the same block, for a history with edge values (zero and max uint256, timestamp 0, empty and 10-character
 * currencies, empty and long metadata, two submitters) spread over more pages than one batch holds.
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { hexlify, MaxUint256, NonceManager, Wallet, type JsonRpcProvider } from "ethers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { contractInterface } from "../../subgraphs/shared/chain/artifacts.js";
import { connectContract } from "../../subgraphs/shared/chain/contracts.js";
import { DEV_MIN_BOND, waitFor } from "../../subgraphs/shared/chain/deploy.js";
import { ANVIL_DEFAULT_KEYS, DEV_DEPLOYER_KEY } from "../../subgraphs/shared/chain/dev-keys.js";
import { openPlatformChain, type PlatformChain } from "../../subgraphs/shared/chain/embedded.js";
import { ChainReader } from "../../subgraphs/shared/chain/reader.js";
import { callData } from "../../subgraphs/shared/chain/rpc-batch.js";
import { createProvider } from "../../subgraphs/shared/chain/rpc.js";
import { EVENT_PAGE_SIZE, PAGES_PER_BATCH, RatingsChain, type EventRecord } from "../../subgraphs/ratings/chain/ratings-chain.js";
import { testConfig } from "../support/config.js";

const EVENTS = EVENT_PAGE_SIZE * (PAGES_PER_BATCH + 1) + 37;
const registry = contractInterface("EventRegistry");

describe("event pages read from the chain", () => {
  let dataDir: string;
  let chain: PlatformChain;
  let provider: JsonRpcProvider;
  let reader: ChainReader;
  let ratings: RatingsChain;
  /** Every event as ethers decodes the pages at the reader's block. */
  let expected: EventRecord[];

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), "event-pages-"));
    const config = testConfig({ DATA_DIR: dataDir, ANVIL_PORT: "0", SEED_DEMO: "0", CHAIN_TIMEOUT_MS: "60000" });
    chain = await openPlatformChain(config);
    provider = createProvider(chain.rpcUrl, { chainId: chain.chainId, timeoutMs: 60_000 });
    const addresses = chain.addresses as Record<string, string>;
    const admin = new NonceManager(new Wallet(DEV_DEPLOYER_KEY, provider));
    const delegate = new NonceManager(new Wallet(ANVIL_DEFAULT_KEYS[3]!, provider));
    await waitFor(connectContract("IdentityRegistry", addresses, admin).registerAt(1, Wallet.createRandom().address, Wallet.createRandom().address, { value: DEV_MIN_BOND }));
    await waitFor(connectContract("EventRegistry", addresses, admin).setSubmitter(1, await delegate.getAddress(), true));
    const now = (await provider.getBlock("latest"))!.timestamp;
    for (let start = 0; start < EVENTS; start += EVENT_PAGE_SIZE) {
      const inputs = Array.from({ length: Math.min(EVENT_PAGE_SIZE, EVENTS - start) }, (_, i) => eventInput(start + i, now));
      const submitter = (start / EVENT_PAGE_SIZE) % 2 ? delegate : admin;
      await waitFor(connectContract("EventRegistry", addresses, submitter).batchSubmitEvents(inputs, { gasLimit: 29_000_000 }));
    }
    reader = new ChainReader({ rpcUrl: chain.rpcUrl, addresses: chain.addresses, chainId: chain.chainId, requestTimeoutMs: 60_000, pollIntervalMs: 60_000 });
    await reader.start();
    ratings = new RatingsChain(reader, chain.addresses);
    expected = [];
    for (let offset = 0; offset < EVENTS; offset += EVENT_PAGE_SIZE) {
      const data = registry.encodeFunctionData("getEvents", [1n, offset, EVENT_PAGE_SIZE]);
      const returnData = await provider.send("eth_call", [{ to: addresses.EventRegistry, data }, `0x${reader.pinnedBlock!.toString(16)}`]);
      const page = registry.decodeFunctionResult("getEvents", returnData)[0] as Array<Record<string, unknown>>;
      page.forEach((e, i) => expected.push(asRecord(e, offset + i)));
    }
  }, 180_000);

  afterAll(async () => {
    reader?.close();
    provider?.destroy();
    await chain?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("the whole history, in batches, is what ethers decodes", async () => {
    expect(expected).toHaveLength(EVENTS);
    expect(await ratings.events(1n, 0, EVENTS)).toEqual(expected);
  });

  it("an unaligned range over two batches and a single page at an offset are the same slices", async () => {
    expect(await ratings.events(1n, 37, EVENTS - 37)).toEqual(expected.slice(37));
    expect(await ratings.events(1n, 150, 60)).toEqual(expected.slice(150, 210));
    expect(await ratings.events(1n, 0, 1)).toEqual(expected.slice(0, 1));
  });

  it("batched call data is encodeFunctionData's, call for call", () => {
    const argsList = [[1n, 0, 100], [1n, 100, 100], [MaxUint256, 7, 0]] as const;
    expect(callData(registry, "getEvents", argsList)).toEqual(argsList.map((args) => registry.encodeFunctionData("getEvents", args)));
  });

  it("the edge values reached the chain", () => {
    const values = expected.map((e) => e.value);
    expect(values).toContain(0n);
    expect(values).toContain(MaxUint256);
    expect(expected.some((e) => e.metadata.length === 2 + 2 * 700)).toBe(true);
    expect(new Set(expected.map((e) => e.submitter)).size).toBe(2);
    expect(new Set(expected.map((e) => e.currency))).toEqual(new Set(["", "USD", "ABCDEFGHIJ", "EUR2"]));
  });
});

/** Edge values on every 17th event (so on first and last slots of some pages), plain revenue between them. */
function eventInput(n: number, now: number) {
  const edge = n % 17 === 0 ? (n / 17) % 4 : -1;
  const word = (byte: string) => `0x${byte.repeat(32)}`;
  return {
    machineId: 1,
    eventType: edge === 2 ? 1 : 0,
    value: edge === 0 ? 0n : edge === 1 ? MaxUint256 : edge === 3 ? 1n << 53n : BigInt(1000 + n),
    currency: edge === 2 ? "" : edge === 1 ? "ABCDEFGHIJ" : edge === 3 ? "EUR2" : "USD",
    timestamp: edge === 0 ? 0 : now - (EVENTS - n) * 60,
    dataHash: edge === 1 ? word("ff") : edge === 0 ? word("00") : word((n % 256).toString(16).padStart(2, "0")),
    trustLevel: n % 3,
    sourceChainId: edge === 1 ? MaxUint256 : edge === 3 ? (1n << 53n) - 1n : BigInt(n % 2),
    sourceTxHash: edge === 0 ? word("00") : word("ab"),
    metadata: edge === 1 ? hexlify(new Uint8Array(700).map((_, i) => (i * 7 + n) % 256)) : edge === 2 ? "0x01" : "0x",
  };
}

function asRecord(e: Record<string, unknown>, index: number): EventRecord {
  return {
    index,
    eventType: Number(e.eventType),
    value: e.value as bigint,
    currency: e.currency as string,
    timestamp: Number(e.timestamp),
    dataHash: e.dataHash as string,
    trustLevel: Number(e.trustLevel),
    sourceChainId: e.sourceChainId as bigint,
    sourceTxHash: e.sourceTxHash as string,
    metadata: e.metadata as string,
    submitter: (e.submitter as string).toLowerCase(),
    recordedAt: Number(e.recordedAt),
  };
}
