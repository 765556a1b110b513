/**
 * The demo fixture file `<dataDir>/demo.json`: what seedDemo put on the embedded chain, with every key a demo or a
 * test needs to act as a machine's owner, controller or operator.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import type { DemoChip } from "../crypto/vendor-ca.js";
import type { ContractAddresses } from "./deploy.js";
import type { DemoRatingsFixture } from "./demo-ratings.js";
import type { DemoPaymentsFixture } from "./payments-setup.js";

export type DemoMachineState = "active" | "deactivated" | "second-chain";

export interface DemoMachine {
  /** Decimal machine ID, the same in MachineRegistry and IdentityRegistry. */
  machineId: string;
  /** `did:<method>:<machineId>` (2.0 form). */
  did: string;
  machineAddress: string;
  /** `did:<method>:0x<machineAddress>` (1.0 address form). */
  legacyDid: string;
  /** Decimal MachineNFT token ID. */
  tokenId: string;
  ownerAddress: string;
  ownerPrivateKey: string;
  /** The effective DID controller (the registry's controller, else the NFT owner) and its key. */
  controllerAddress: string;
  controllerPrivateKey: string;
  operatorAddress: string;
  operatorPrivateKey: string;
  operatorDid: string;
  state: DemoMachineState;
  chip: DemoChip;
}

export interface DemoFixture {
  chainId: number;
  rpcUrl: string;
  /** The documented dev onboarding token when it is accepted; absent when tokens are configured (never written). */
  onboardingToken?: string;
  contracts: ContractAddresses;
  vendor: { rootCertPem: string; intermediateCertPem: string };
  machines: DemoMachine[];
  /** Document 2: rated machines 7-15, the operator fleet, the 2.0 machine, second-chain bindings (demo-ratings.ts). */
  ratings: DemoRatingsFixture;
  /**
   * Document 3: the demo provider role `all` runs for the native skill (subgraphs/markets/work/demo.provider.ts); written
   * at every start (its port is DEMO_PROVIDER_PORT). Register it as a machine's runtime endpoint for `providerKey`.
   */
  markets?: { provider: DemoProviderFixture; agent?: DemoAgentFixture };
  /**
   * Document 3 payments: the test stablecoin and escrow, the escrow operator's address (empty when none is
   * configured), the funded demo agents and the demo payee (payments-setup.ts, docs/markets-payments.md).
   */
  payments?: DemoPaymentsFixture;
}

/** Document 3: the demo AI agent's wallet (a key derived from a public seed: dev only), for `cli market`. */
export interface DemoAgentFixture {
  address: string;
  privateKey: string;
}

export interface DemoProviderFixture {
  url: string;
  providerKey: string;
  skillKey: string;
  operation: string;
  authType: "bearer";
  authToken: string;
}

export function demoFixturePath(dataDir: string): string {
  return path.join(dataDir, "demo.json");
}

export function readDemoFixture(dataDir: string): DemoFixture | null {
  const file = demoFixturePath(dataDir);
  return existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as DemoFixture) : null;
}
