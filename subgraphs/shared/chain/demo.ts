/**
 * Seeds the demo fixture on the embedded chain and writes `<dataDir>/demo.json` (shape: demo-fixture.ts).
 *
 * Idempotent: when demo.json exists and matches the chain (same chain ID and contracts, machine 1 registered) nothing
 * is sent; only `rpcUrl` and `onboardingToken` are refreshed. Keys are derived from fixed labels (dev-keys.ts), so a
 * reseed on a fresh chain produces the same addresses.
 *
 * The file holds private keys, so it is written 0600. It names the onboarding token only when that is the documented
 * dev token: a configured token is a secret of the operator's and never lands in a file.
 */
import { mkdirSync } from "node:fs";
import { createHash } from "node:crypto";
import {
  decodeBase58,
  keccak256,
  NonceManager,
  parseEther,
  toBeHex,
  toUtf8Bytes,
  Wallet,
  type JsonRpcProvider,
  type Signer,
} from "ethers";
import { CONTRACT_NAMES } from "../config.js";
import { writeSecretFile } from "../data-dir.js";
import { createDemoVendor } from "../crypto/vendor-ca.js";
import { connectContract } from "./contracts.js";
import { DEV_MIN_BOND, minedReceipt, waitFor, type ContractAddresses } from "./deploy.js";
import { seedRatingsDemo } from "./demo-ratings.js";
import { demoWallet } from "./dev-keys.js";
import { seedPaymentsDemo } from "./payments-setup.js";
import {
  demoFixturePath,
  readDemoFixture,
  type DemoFixture,
  type DemoMachine,
  type DemoMachineState,
} from "./demo-fixture.js";

export const DEV_ONBOARDING_TOKEN = "dev-onboarding-token";
export const DEMO_VENDOR_SEED = "demo-chip-vendor";
/** Solana mainnet-beta genesis hash, the home of the second-chain demo machine. */
export const DEMO_SOLANA_GENESIS = "5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d";

type ChipSeed = "none" | "verified" | "expired" | "expired-revoked";
type KybSeed = "none" | "verified" | "revoked" | "expired";

export interface DemoMachineSpec {
  id: number;
  state: DemoMachineState;
  /** A controller distinct from the NFT owner is set in the registry. */
  ownController: boolean;
  chip: ChipSeed;
  kyb: KybSeed;
  dataVisibility: "onchain" | "private" | "public";
  /** Revenue and activity events are seeded (only for active, bonded machines). */
  events: boolean;
}

/** The demo machines; docs/chain.md has the same table. Machine 2 is the chip-verification walkthrough machine. */
export const DEMO_MACHINES: readonly DemoMachineSpec[] = [
  { id: 1, state: "active", ownController: true, chip: "verified", kyb: "verified", dataVisibility: "onchain", events: true },
  { id: 2, state: "active", ownController: false, chip: "none", kyb: "none", dataVisibility: "private", events: true },
  { id: 3, state: "deactivated", ownController: false, chip: "none", kyb: "none", dataVisibility: "private", events: false },
  { id: 4, state: "second-chain", ownController: false, chip: "none", kyb: "none", dataVisibility: "public", events: false },
  { id: 5, state: "active", ownController: false, chip: "expired", kyb: "revoked", dataVisibility: "private", events: false },
  { id: 6, state: "active", ownController: false, chip: "expired-revoked", kyb: "expired", dataVisibility: "private", events: false },
];

const DAY = 86_400;
const IDENTITY_STATUS = { Verified: 2, Deactivated: 4 } as const;

export interface SeedDemoOptions {
  provider: JsonRpcProvider;
  deployerKey: string;
  dataDir: string;
  rpcUrl: string;
  chainId: number;
  contracts: ContractAddresses;
  /** config.namespace.didMethod */
  didMethod: string;
  /** config.onboardingTokens; the fixture names the dev token when it is among them, no other. */
  onboardingTokens: string[];
  /** Address of the escrow operator (config.payments); named in demo.json's `payments`. */
  escrowOperator?: string;
  log?: (line: string) => void;
}

export async function seedDemo(options: SeedDemoOptions): Promise<DemoFixture> {
  const log = options.log ?? (() => {});
  const onboardingToken = options.onboardingTokens.includes(DEV_ONBOARDING_TOKEN) ? DEV_ONBOARDING_TOKEN : undefined;
  const existing = readDemoFixture(options.dataDir);
  if (existing && (await fixtureMatchesChain(existing, options))) {
    const { onboardingToken: _earlier, ...rest } = existing;
    const refreshed: DemoFixture = { ...rest, rpcUrl: options.rpcUrl, ...(onboardingToken ? { onboardingToken } : {}) };
    if (refreshed.payments) refreshed.payments.escrow.operatorAddress = options.escrowOperator ?? "";
    writeFixture(options.dataDir, refreshed);
    return refreshed;
  }

  log("chain: seeding the demo fixture");
  const vendor = await createDemoVendor(DEMO_VENDOR_SEED);
  const seeder = new DemoSeeder(options);
  const machines: DemoMachine[] = [];
  for (const spec of DEMO_MACHINES) machines.push(await seeder.seedMachine(spec, vendor));
  const ratings = await seeder.seedRatings();
  const payments = await seeder.seedPayments();

  const fixture: DemoFixture = {
    chainId: options.chainId,
    rpcUrl: options.rpcUrl,
    ...(onboardingToken ? { onboardingToken } : {}),
    contracts: options.contracts,
    vendor: { rootCertPem: vendor.rootCertPem, intermediateCertPem: vendor.intermediateCertPem },
    machines,
    ratings,
    payments,
  };
  writeFixture(options.dataDir, fixture);
  log(`chain: demo fixture written to ${demoFixturePath(options.dataDir)}`);
  return fixture;
}

async function fixtureMatchesChain(fixture: DemoFixture, options: SeedDemoOptions): Promise<boolean> {
  if (fixture.chainId !== options.chainId || fixture.machines.length !== DEMO_MACHINES.length || !fixture.ratings) return false;
  if (!fixture.payments) return false;
  if (CONTRACT_NAMES.some((name) => fixture.contracts[name] !== options.contracts[name])) return false;
  const registry = connectContract("MachineRegistry", options.contracts, options.provider);
  const first = await registry.getMachine(DEMO_MACHINES[0].id);
  return first.exists === true;
}

function writeFixture(dataDir: string, fixture: DemoFixture): void {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  writeSecretFile(demoFixturePath(dataDir), `${JSON.stringify(fixture, null, 2)}\n`);
}

/** Solana genesis hash (base58) as the bytes32 the registry stores. */
function genesisHashBytes32(base58: string): string {
  return toBeHex(decodeBase58(base58), 32);
}

class DemoSeeder {
  private readonly admin: Signer;
  private chainNow = 0;

  constructor(private readonly options: SeedDemoOptions) {
    this.admin = new NonceManager(new Wallet(options.deployerKey, options.provider));
  }

  private contract(name: Parameters<typeof connectContract>[0], signer: Signer = this.admin) {
    return connectContract(name, this.options.contracts, signer);
  }

  async seedMachine(spec: DemoMachineSpec, vendor: Awaited<ReturnType<typeof createDemoVendor>>): Promise<DemoMachine> {
    const { provider, didMethod } = this.options;
    const machine = demoWallet(`machine-${spec.id}`);
    const owner = demoWallet(`owner-${spec.id}`).connect(provider);
    const operator = demoWallet(`operator-${spec.id}`).connect(provider);
    const controller = spec.ownController ? demoWallet(`controller-${spec.id}`) : owner;
    for (const wallet of [machine, owner, operator, controller]) {
      await provider.send("anvil_setBalance", [wallet.address, toBeHex(parseEther("100"))]);
    }
    const block = await provider.getBlock("latest");
    this.chainNow = block!.timestamp;

    const registry = this.contract("MachineRegistry");
    const secondChain = spec.state === "second-chain";
    await waitFor(
      registry.registerMachine(
        spec.id,
        machine.address,
        operator.address,
        owner.address,
        secondChain ? 1 : 0,
        secondChain ? 0 : this.options.chainId,
        secondChain ? genesisHashBytes32(DEMO_SOLANA_GENESIS) : `0x${"00".repeat(32)}`,
      ),
    );
    const identity = this.contract("IdentityRegistry");
    await waitFor(identity.registerAt(spec.id, machine.address, operator.address, { value: DEV_MIN_BOND }));
    const deactivated = spec.state === "deactivated";
    await waitFor(identity.setMachineStatus(spec.id, deactivated ? IDENTITY_STATUS.Deactivated : IDENTITY_STATUS.Verified));
    if (deactivated) await waitFor(registry.deactivate(spec.id));
    if (spec.ownController) await waitFor(this.contract("MachineRegistry", owner).setController(spec.id, controller.address));
    const tokenId = (await registry.getMachine(spec.id)).tokenId as bigint;

    const operatorDid = `did:${didMethod}:${operator.address}`;
    await this.seedDidAttributes(machine.address, {
      machineId: String(spec.id),
      nftTokenId: tokenId.toString(),
      operator: operatorDid,
      data_visibility: spec.dataVisibility,
    });
    await this.seedDidAttributes(operator.address, { machines: JSON.stringify([spec.id]) });

    const chip = await vendor.issueChip(`chip-${spec.id}`);
    await this.seedChipAttestation(spec, chip.leafCertPem);
    await this.seedKybAttestation(spec.kyb, operator.address);
    if (spec.events) await this.seedEvents(spec.id, operator);

    return {
      machineId: String(spec.id),
      did: `did:${didMethod}:${spec.id}`,
      machineAddress: machine.address,
      legacyDid: `did:${didMethod}:${machine.address}`,
      tokenId: tokenId.toString(),
      ownerAddress: owner.address,
      ownerPrivateKey: owner.privateKey,
      controllerAddress: controller.address,
      controllerPrivateKey: controller.privateKey,
      operatorAddress: operator.address,
      operatorPrivateKey: operator.privateKey,
      operatorDid,
      state: spec.state,
      chip,
    };
  }

  /** Document 2's demo machines, fleet, 2.0 machine and bindings (demo-ratings.ts). */
  async seedRatings() {
    const block = await this.options.provider.getBlock("latest");
    const ratings = await seedRatingsDemo({ ...this.options, admin: this.admin, chainNow: block!.timestamp });
    // Two more blocks, so everything seeded is behind the embedded node's finalized block (the 2.0 ownership index).
    await this.options.provider.send("anvil_mine", ["0x2"]);
    return ratings;
  }

  /** Document 3 payments: demo agents funded with test stablecoin and gas (payments-setup.ts). */
  async seedPayments() {
    return seedPaymentsDemo(this.options.provider, this.admin, this.options.contracts, this.options.escrowOperator ?? "");
  }

  private async seedDidAttributes(didAccount: string, attributes: Record<string, string>): Promise<void> {
    const dids = this.contract("DidRegistry");
    for (const [name, value] of Object.entries(attributes)) {
      await waitFor(dids.addAttribute(didAccount, toUtf8Bytes(name), toUtf8Bytes(value), 0));
    }
  }

  private async seedChipAttestation(spec: DemoMachineSpec, leafCertPem: string): Promise<void> {
    if (spec.chip === "none") return;
    const der = Buffer.from(leafCertPem.replace(/-----[A-Z ]+-----|\s/g, ""), "base64");
    // Demo chipRef: SHA-256 of the leaf certificate (the certificate fingerprint).
    const chipRef = `0x${createHash("sha256").update(der).digest("hex")}`;
    const evidenceHash = keccak256(toUtf8Bytes(`demo-evidence|${spec.id}`));
    const expiresAt = spec.chip === "verified" ? this.chainNow + 365 * DAY : this.chainNow - DAY;
    const uid = await this.attest("attestChip", [spec.id, chipRef, evidenceHash, expiresAt]);
    if (spec.chip === "expired-revoked") await waitFor(this.contract("AttestationRegistry").revoke(uid));
  }

  private async seedKybAttestation(kyb: KybSeed, operator: string): Promise<void> {
    if (kyb === "none") return;
    const kybRef = keccak256(toUtf8Bytes(`demo-kyb|${operator}`));
    const expiresAt = kyb === "expired" ? this.chainNow - DAY : this.chainNow + 365 * DAY;
    const uid = await this.attest("attestKyb", [operator, kybRef, expiresAt]);
    if (kyb === "revoked") await waitFor(this.contract("AttestationRegistry").revoke(uid));
  }

  /** Sends an attestation and returns its uid, taken from the mined transaction's event. */
  private async attest(method: "attestChip" | "attestKyb", args: unknown[]): Promise<string> {
    const attestations = this.contract("AttestationRegistry");
    const receipt = await minedReceipt(await attestations[method](...args));
    const event = method === "attestChip" ? "ChipAttested" : "KybAttested";
    for (const entry of receipt.logs) {
      const parsed = attestations.interface.parseLog(entry);
      if (parsed?.name === event) return parsed.args.uid as string;
    }
    throw new Error(`${method}: no ${event} event in the receipt`);
  }

  /** A month of revenue and a few activity events, submitted by the operator (the path real operators use). */
  private async seedEvents(machineId: number, operator: Wallet): Promise<void> {
    const events = this.contract("EventRegistry", operator);
    const samples: [type: 0 | 1, value: bigint, currency: string, daysAgo: number][] = [
      [0, 12_500n, "USD", 30],
      [0, 9_800n, "USD", 20],
      [1, 42n, "", 15],
      [0, 15_200n, "USD", 10],
      [1, 57n, "", 2],
    ];
    for (const [eventType, value, currency, daysAgo] of samples) {
      const timestamp = this.chainNow - daysAgo * DAY;
      const dataHash = keccak256(toUtf8Bytes(`demo-event|${machineId}|${timestamp}`));
      const noTx = `0x${"00".repeat(32)}`;
      await waitFor(events.submitEvent(machineId, eventType, value, currency, timestamp, dataHash, 1, 0, noTx, "0x"));
    }
  }
}
