/**
 * Shared helpers of the document 2 suites: a platform with generous per-IP limits (on PGlite, or its own PostgreSQL
 * database when DATABASE_URL is set), GET requests over real sockets, the two error envelopes, demo-fixture accessors
 * and chain actions as the admin or a demo key.
 */
import { Wallet, type Contract } from "ethers";
import { expect } from "vitest";
import { connectContract } from "../../subgraphs/shared/chain/contracts.js";
import { waitFor } from "../../subgraphs/shared/chain/deploy.js";
import type { DemoRatedMachine } from "../../subgraphs/shared/chain/demo-ratings.js";
import { DEV_DEPLOYER_KEY } from "../../subgraphs/shared/chain/dev-keys.js";
import { createProvider } from "../../subgraphs/shared/chain/rpc.js";
import type { ContractName } from "../../subgraphs/shared/config.js";
import type { HttpAnswer } from "../support/http.js";
import type { StartOptions } from "../../gateway/platform.js";
import { startIsolatedPlatform, type IsolatedPlatform, type TestPlatform } from "../support/platform.js";
import { waitUntil } from "../support/wait.js";

export type RatingsPlatform = IsolatedPlatform;

/** The platform with generous per-IP limits on its own database (PGlite, or PostgreSQL with DATABASE_URL). */
export function startRatingsPlatform(env: Record<string, string> = {}, options: StartOptions = {}): Promise<RatingsPlatform> {
  return startIsolatedPlatform(env, options);
}

/** A read-route error: `{"detail":"<text>"}`, FastAPI's content type. */
export function expectDetail(answer: HttpAnswer, status: number, detail: string): void {
  expect({ status: answer.status, text: answer.text }).toEqual({ status, text: JSON.stringify({ detail }) });
  expect(answer.headers["content-type"]).toBe("application/json");
}

/** A monetization error: `{"detail":{"code","message"}}`. */
export function expectCoded(answer: HttpAnswer, status: number, code: string): void {
  expect({ status: answer.status, code: answer.status === status ? answer.json().detail?.code : answer.text }).toEqual({ status, code });
  expect(Object.keys(answer.json().detail)).toEqual(["code", "message"]);
}

/** A faucet error: `{"code","message"}`. */
export function expectFaucetError(answer: HttpAnswer, status: number, code: string): void {
  expect({ status: answer.status, body: answer.text }).toMatchObject({ status });
  const body = answer.json();
  expect(Object.keys(body)).toEqual(["code", "message"]);
  expect(body.code).toBe(code);
}

/** Demo machine 7..15 of the ratings fixture. */
export function rated(p: TestPlatform, machineId: number): DemoRatedMachine {
  const machine = p.demo.ratings.machines.find((m) => m.machineId === String(machineId));
  if (!machine) throw new Error(`no rated demo machine ${machineId}`);
  return machine;
}

/** Sends a transaction with `key` (default: the admin) and waits until the platform's reader has seen its block. */
export async function transact(
  p: TestPlatform,
  name: ContractName,
  call: (contract: Contract) => Promise<{ hash: string; wait(): Promise<unknown> } & object>,
  key = DEV_DEPLOYER_KEY,
): Promise<void> {
  const provider = createProvider(p.platform.chain!.rpcUrl, { chainId: p.demo.chainId, timeoutMs: 10_000 });
  try {
    const contract = connectContract(name, p.platform.chain!.addresses, new Wallet(key, provider));
    await waitFor(call(contract) as never);
    await waitForBlock(p, await provider.getBlockNumber());
  } finally {
    provider.destroy();
  }
}

/** Resolves once the platform's chain reader is pinned at `block` or later. */
export async function waitForBlock(p: TestPlatform, block: number): Promise<void> {
  await waitUntil(() => {
    const pinned = p.platform.services.ratings!.pinnedBlock();
    return pinned !== null && pinned >= block;
  });
}
