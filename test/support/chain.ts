/** The test platform's embedded chain node (anvil): JSON-RPC calls, and blocks mined at a chosen time. */
import { createProvider } from "../../subgraphs/shared/chain/rpc.js";
import type { TestPlatform } from "./platform.js";

/** A JSON-RPC call to the platform's chain node (anvil_*, evm_*, eth_*). */
export async function rpc(p: TestPlatform, method: string, params: unknown[] = []): Promise<unknown> {
  const provider = createProvider(p.platform.chain!.rpcUrl, { chainId: p.demo.chainId, timeoutMs: 10_000 });
  try {
    return await provider.send(method, params);
  } finally {
    provider.destroy();
  }
}

/**
 * Mines one block, e.g. so a time-based status is computed at a newer block timestamp; `advanceSeconds` first moves
 * the chain's clock forward (evm_increaseTime), so no test waits for the wall clock.
 */
export async function mineBlock(p: TestPlatform, advanceSeconds = 0): Promise<void> {
  if (advanceSeconds > 0) await rpc(p, "evm_increaseTime", [advanceSeconds]);
  await rpc(p, "evm_mine");
}
