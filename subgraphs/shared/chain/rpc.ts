/**
 * JSON-RPC plumbing shared by the reader, the deployer, the demo seeder and the CLI.
 */
import type { Agent } from "node:http";
import { FetchRequest, JsonRpcProvider, Network } from "ethers";

export interface ProviderOptions {
  /** Known chain ID: the provider never asks the node for it (no start-up probing, no retry loop when it is down). */
  chainId: number | bigint;
  /** Transport deadline of one HTTP request. */
  timeoutMs?: number;
  /** HTTP agent for the node's connections (keep-alive, socket cap); default: Node's global agent. */
  agent?: Agent;
}

/** An ethers provider that sends every request at once (no batching stall) and never re-detects the network. */
export function createProvider(rpcUrl: string, options: ProviderOptions): JsonRpcProvider {
  const request = new FetchRequest(rpcUrl);
  if (options.timeoutMs !== undefined) request.timeout = options.timeoutMs;
  if (options.agent) request.getUrlFunc = FetchRequest.createGetUrlFunc({ agent: options.agent });
  const provider = new JsonRpcProvider(request, Network.from(options.chainId), {
    staticNetwork: true,
    batchMaxCount: 1,
    // ethers' default 250 ms request cache would return stale nonces between quick transactions from one key.
    cacheTimeout: -1,
    // Automining dev chains include a transaction before eth_sendRawTransaction returns; poll receipts quickly.
    pollingInterval: 100,
  });
  return provider;
}

/** `eth_chainId` over plain fetch, for callers that must learn the chain ID before building a provider. */
export async function fetchChainId(rpcUrl: string, timeoutMs: number): Promise<bigint> {
  const response = await fetch(rpcUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_chainId", params: [] }),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const body = (await response.json()) as { result?: string };
  if (typeof body.result !== "string") throw new Error(`eth_chainId: unexpected answer from ${rpcUrl}`);
  return BigInt(body.result);
}
