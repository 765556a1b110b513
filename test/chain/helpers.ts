import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { PlatformConfig } from "../../subgraphs/shared/config.js";
import { testConfig } from "../support/config.js";
import { openPlatformChain, type PlatformChain } from "../../subgraphs/shared/chain/embedded.js";
import { ChainReader } from "../../subgraphs/shared/chain/reader.js";

export interface SeededChain {
  config: PlatformConfig;
  chain: PlatformChain;
  reader: ChainReader;
  logs: string[];
  close(): Promise<void>;
}

export function tempDataDir(): string {
  return mkdtempSync(path.join(os.tmpdir(), "chain-test-"));
}

/** Embedded anvil on a free port with the contracts deployed and the demo seeded, plus a started reader. */
export async function startSeededChain(dataDir = tempDataDir()): Promise<SeededChain> {
  // The RPC deadline only catches a hang here (deploying and seeding at load 28 outran 2 s in a loaded run); suites
  // about deadlines build their own reader with their own.
  const config = testConfig({ DATA_DIR: dataDir, ANVIL_PORT: "0", CHAIN_POLL_MS: "50", CHAIN_TIMEOUT_MS: "60000" });
  const logs: string[] = [];
  const chain = await openPlatformChain(config, (line) => logs.push(line));
  const reader = new ChainReader({
    rpcUrl: chain.rpcUrl,
    addresses: chain.addresses,
    chainId: chain.chainId,
    requestTimeoutMs: config.chain.requestTimeoutMs,
    pollIntervalMs: config.chain.pollIntervalMs,
  });
  await reader.start();
  return {
    config,
    chain,
    reader,
    logs,
    async close() {
      reader.close();
      await chain.stop();
    },
  };
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}
