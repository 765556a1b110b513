/**
 * The ratings part of the demo fixture (document 2): machines 7 to 15 on the 1.0 identity registry, one per rating
 * band and bond state, with every data visibility and trust level; one operator fleet; a 2.0 machine (derived ID, in
 * the machine registry only, activated by a stake); and second-chain bindings (bound machine, bound operator, revoked,
 * unbound). Event histories are relative to the chain's time at seeding, so the bands hold right after a (re)seed;
 * docs/mcr-scoring.md works each one out. Machines 1 to 6 (document 1) are not touched.
 */
import { getBase58Decoder } from "@solana/kit";
import { AbiCoder, keccak256, parseEther, toBeHex, toUtf8Bytes, type JsonRpcProvider, type Signer } from "ethers";
import { connectContract } from "./contracts.js";
import type { ContractAddresses } from "./deploy.js";
import { DEV_MIN_BOND, waitFor } from "./deploy.js";
import { demoWallet } from "./dev-keys.js";

export type DemoVisibility = "private" | "onchain" | "public";

export interface DemoRatedMachine {
  machineId: string;
  /** What the machine demonstrates: the rating band (or state) right after seeding. */
  expectedRating: string;
  machineAddress: string;
  /** `did:<method>:0x<machineAddress>` (the 1.0 form the read routes take). */
  did: string;
  dataVisibility: DemoVisibility;
  bonded: boolean;
  /** Decimal MachineNFT token ID, or null (no NFT). */
  tokenId: string | null;
}

export interface DemoAltchainBinding {
  label: "bound-machine" | "bound-operator" | "revoked";
  /** Base58 32-byte second-chain key. */
  altchainKey: string;
  evmAddress: string;
  status: "bound" | "revoked";
  boundAt: number;
  revokedAt: number;
}

export interface DemoRatingsFixture {
  fleetOperator: { address: string; privateKey: string; did: string };
  fleetOwner: { address: string; privateKey: string; did: string };
  machines: DemoRatedMachine[];
  /** Registered in the machine registry only: the 1.0 server does not know it. */
  v2Machine: { machineId: string; did: string; machineAddress: string; ownerAddress: string; tokenId: string };
  altchainBindings: DemoAltchainBinding[];
  /** A valid key nothing is bound to. */
  unboundAltchainKey: string;
}

type Pattern = { days: number[]; type: "revenue" | "activity"; value: bigint; currency: string; trust: number };
interface RatedSpec {
  id: number;
  expectedRating: string;
  visibility: DemoVisibility;
  bonded: boolean;
  nft: boolean;
  dataApi?: string;
  trustOverride?: number;
  flagged?: boolean;
  events: Pattern[];
}

const DAY = 86_400;
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
const revenue = (days: number[], value: bigint, trust: number, currency = "USD"): Pattern => ({ days, type: "revenue", value, currency, trust });
const activity = (days: number[], trust: number): Pattern => ({ days, type: "activity", value: 1n, currency: "", trust });

/** docs/mcr-scoring.md, "Worked examples": each history lands in its band. */
export const DEMO_RATED_MACHINES: readonly RatedSpec[] = [
  { id: 7, expectedRating: "AAA", visibility: "public", bonded: true, nft: true, dataApi: "http://127.0.0.1/partner-data", events: [revenue(range(1, 50), 30_000n, 2)] },
  { id: 8, expectedRating: "AA", visibility: "private", bonded: true, nft: true, dataApi: "https://partner.example/machines/8", trustOverride: 50, events: [revenue(range(1, 50), 30_000n, 2)] },
  { id: 9, expectedRating: "A", visibility: "private", bonded: true, nft: true, events: [revenue(range(1, 25), 30_000n, 0), revenue(range(26, 50), 27_778n, 0, "EUR")] },
  { id: 10, expectedRating: "BBB", visibility: "onchain", bonded: true, nft: true, flagged: true, events: [revenue(range(1, 50), 30_000n, 2)] },
  { id: 11, expectedRating: "BB", visibility: "private", bonded: true, nft: true, events: [activity(range(1, 45), 1)] },
  { id: 12, expectedRating: "B", visibility: "private", bonded: true, nft: true, events: [activity([...range(1, 19), 40], 1)] },
  { id: 13, expectedRating: "NR", visibility: "private", bonded: true, nft: true, events: [activity([...range(1, 9), 32], 0), revenue([3], 500n, 0, "XYZ")] },
  { id: 14, expectedRating: "NR (unbonded)", visibility: "private", bonded: false, nft: true, events: [] },
  { id: 15, expectedRating: "Provisioned", visibility: "private", bonded: true, nft: false, events: [activity([1, 2, 3], 1)] },
];

/** Unregistered machine IDs listed in the fleet's `machines` attribute: counted in `total`, dropped from pages. */
const UNREGISTERED_FLEET_ENTRY = 999;

const IDENTITY_VERIFIED = 2;
/** Trust level 1 (on-chain verifiable) events name a source chain and transaction. */
const ONCHAIN_SOURCE_CHAIN_ID = 3338;

export function demoAltchainKey(label: string): string {
  return getBase58Decoder().decode(Buffer.from(keccak256(toUtf8Bytes(`demo|altchain-${label}`)).slice(2), "hex"));
}

/** The 2.0 derived machine ID: uint256(keccak256(abi.encode(machineType, credentialSubject))). */
export function derivedMachineId(machineType: string, credentialSubject: string): bigint {
  return BigInt(keccak256(AbiCoder.defaultAbiCoder().encode(["string", "string"], [machineType, credentialSubject])));
}

export interface SeedRatingsOptions {
  provider: JsonRpcProvider;
  admin: Signer;
  contracts: ContractAddresses;
  chainId: number;
  didMethod: string;
  chainNow: number;
}

export async function seedRatingsDemo(options: SeedRatingsOptions): Promise<DemoRatingsFixture> {
  const { provider, admin, contracts, didMethod, chainNow } = options;
  const contract = (name: Parameters<typeof connectContract>[0], signer: Signer = admin) => connectContract(name, contracts, signer);
  const operator = demoWallet("operator-fleet").connect(provider);
  const owner = demoWallet("owner-fleet").connect(provider);
  for (const wallet of [operator, owner]) await provider.send("anvil_setBalance", [wallet.address, toBeHex(parseEther("100"))]);
  const identity = contract("IdentityRegistry");
  const nft = contract("MachineNFT");
  const flags = contract("AdminFlags");
  const events = contract("EventRegistry", operator);
  const did = (address: string) => `did:${didMethod}:${address}`;

  const machines: DemoRatedMachine[] = [];
  for (const spec of DEMO_RATED_MACHINES) {
    const wallet = demoWallet(`machine-${spec.id}`);
    if (spec.bonded) await waitFor(identity.registerAt(spec.id, wallet.address, operator.address, { value: DEV_MIN_BOND }));
    else await waitFor(identity.registerUnbondedAt(spec.id, wallet.address, operator.address));
    await waitFor(identity.setMachineStatus(spec.id, IDENTITY_VERIFIED));
    let tokenId: string | null = null;
    if (spec.nft) {
      await waitFor(nft.mint(spec.id, owner.address));
      tokenId = ((await nft.tokenIdOf(spec.id)) as bigint).toString();
    }
    await seedAttributes(contract("DidRegistry"), wallet.address, {
      machineId: String(spec.id),
      ...(tokenId ? { nftTokenId: tokenId } : {}),
      operator: did(operator.address),
      data_visibility: spec.visibility,
      documentation_url: `https://docs.example/machines/${spec.id}`,
      ...(spec.dataApi ? { data_api: spec.dataApi } : {}),
    });
    if (spec.trustOverride !== undefined) await waitFor(flags.setTrustOverride(spec.id, spec.trustOverride));
    if (spec.flagged) await waitFor(flags.flagMachine(spec.id));
    const inputs = spec.events.flatMap((pattern) => pattern.days.map((daysAgo) => eventInput(spec.id, pattern, chainNow - daysAgo * DAY - 3600)));
    if (inputs.length > 0) await waitFor(events.batchSubmitEvents(inputs));
    machines.push({
      machineId: String(spec.id),
      expectedRating: spec.expectedRating,
      machineAddress: wallet.address,
      did: did(wallet.address),
      dataVisibility: spec.visibility,
      bonded: spec.bonded,
      tokenId,
    });
  }
  await seedAttributes(contract("DidRegistry"), operator.address, {
    machines: JSON.stringify([...DEMO_RATED_MACHINES.map((spec) => spec.id), UNREGISTERED_FLEET_ENTRY]),
  });

  const v2Machine = await seedV2Machine(options, operator.address, owner.address);
  const bindings = (label: DemoAltchainBinding["label"], evmAddress: string, revoked: boolean): DemoAltchainBinding => ({
    label,
    altchainKey: demoAltchainKey(label),
    evmAddress,
    status: revoked ? "revoked" : "bound",
    boundAt: chainNow - 30 * DAY,
    revokedAt: revoked ? chainNow - DAY : 0,
  });
  return {
    fleetOperator: { address: operator.address, privateKey: operator.privateKey, did: did(operator.address) },
    fleetOwner: { address: owner.address, privateKey: owner.privateKey, did: did(owner.address) },
    machines,
    v2Machine,
    altchainBindings: [
      bindings("bound-machine", machines[0]!.machineAddress, false),
      bindings("bound-operator", operator.address, false),
      bindings("revoked", machines[1]!.machineAddress, true),
    ],
    unboundAltchainKey: demoAltchainKey("unbound"),
  };
}

/** A 2.0 machine: derived ID, machine registry only, activated (bonded by the admin's stake), no events yet. */
async function seedV2Machine(options: SeedRatingsOptions, operator: string, owner: string) {
  const { admin, contracts, chainId, didMethod } = options;
  const machineId = derivedMachineId("demo-robot", "did:example:demo-robot-v2");
  const wallet = demoWallet("machine-v2");
  const registry = connectContract("MachineRegistry", contracts, admin);
  await waitFor(registry.registerMachine(machineId, wallet.address, operator, owner, 0, chainId, `0x${"00".repeat(32)}`));
  await waitFor(connectContract("IdentityStaking", contracts, admin).stakeFor(machineId, { value: DEV_MIN_BOND }));
  const tokenId = ((await registry.getMachine(machineId)).tokenId as bigint).toString();
  await seedAttributes(connectContract("DidRegistry", contracts, admin), wallet.address, {
    machineId: machineId.toString(),
    nftTokenId: tokenId,
    data_visibility: "private",
  });
  return { machineId: machineId.toString(), did: `did:${didMethod}:${machineId}`, machineAddress: wallet.address, ownerAddress: owner, tokenId };
}

async function seedAttributes(dids: ReturnType<typeof connectContract>, account: string, attributes: Record<string, string>) {
  for (const [name, value] of Object.entries(attributes)) {
    await waitFor(dids.addAttribute(account, toUtf8Bytes(name), toUtf8Bytes(value), 0));
  }
}

function eventInput(machineId: number, pattern: Pattern, timestamp: number) {
  return {
    machineId,
    eventType: pattern.type === "revenue" ? 0 : 1,
    value: pattern.value,
    currency: pattern.currency,
    timestamp,
    dataHash: keccak256(toUtf8Bytes(`demo-event|${machineId}|${timestamp}|${pattern.type}`)),
    trustLevel: pattern.trust,
    sourceChainId: pattern.trust === 1 ? ONCHAIN_SOURCE_CHAIN_ID : 0,
    sourceTxHash: pattern.trust === 1 ? keccak256(toUtf8Bytes(`demo-tx|${machineId}|${timestamp}`)) : `0x${"00".repeat(32)}`,
    metadata: "0x",
  };
}
