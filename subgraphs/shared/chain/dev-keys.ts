/**
 * Well-known development keys. Never use them on a real network.
 */
import { keccak256, toUtf8Bytes, Wallet } from "ethers";

/** anvil's first default account (mnemonic "test test ... junk", index 0): the dev deployer, admin and attester. */
export const DEV_DEPLOYER_KEY = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";

/** Deterministic demo key for a label (`owner-1`, `operator-5`, ...): keccak256("demo|<label>"). */
export function demoWallet(label: string): Wallet {
  return new Wallet(keccak256(toUtf8Bytes(`demo|${label}`)));
}

/** The demo market agent of `cli market` (subgraphs/markets/work/demo.provider.ts demoAgent, demo.json markets.agent). */
export function demoMarketAgent(): Wallet {
  return new Wallet(keccak256(toUtf8Bytes("demo-market-agent|1")));
}
