/**
 * Well-known development keys. Never use them on a real network.
 */
import { keccak256, toUtf8Bytes, Wallet } from "ethers";

/** anvil's first default account (mnemonic "test test ... junk", index 0): the dev deployer, admin and attester. */
export const DEV_DEPLOYER_KEY = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";

/**
 * The private keys of anvil's ten default accounts (mnemonic "test test ... junk", m/44'/60'/0'/0/0..9), published
 * in anvil's own start-up output: a key setting holding one of them is a public key (gateway/network-guard.ts).
 * test/edges/public-address.test.ts derives them from the mnemonic again.
 */
export const ANVIL_DEFAULT_KEYS: readonly string[] = [
  DEV_DEPLOYER_KEY,
  "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d",
  "0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a",
  "0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6",
  "0x47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a",
  "0x8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba",
  "0x92db14e403b83dfe3df233f83dfa3a0d7096f21ca9b0d6d6b8d88b2b4ec1564e",
  "0x4bbbf85ce3377467afe5d46f804f221813b2bb87f24d81f60f1fcdbf7cbf4356",
  "0xdbda1821b80551c9d65939329250298aa3472ba22feea921c0cf5d620ea67b97",
  "0x2a871d0798f97d79848a013d4936a73bf4cc922c825d33c1cf7073dff6d409c6",
];

/** Deterministic demo key for a label (`owner-1`, `operator-5`, ...): keccak256("demo|<label>"). */
export function demoWallet(label: string): Wallet {
  return new Wallet(keccak256(toUtf8Bytes(`demo|${label}`)));
}

/** The demo market agent of `cli market` (subgraphs/markets/work/demo.provider.ts demoAgent, demo.json markets.agent). */
export function demoMarketAgent(): Wallet {
  return new Wallet(keccak256(toUtf8Bytes("demo-market-agent|1")));
}
