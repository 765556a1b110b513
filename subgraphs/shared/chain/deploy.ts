/**
 * Deploys the platform contracts (CONTRACT_NAMES) to the embedded chain, or reuses an earlier deployment.
 *
 * `<dataDir>/chain/deployment.json` records the addresses. It is reused when the chain ID and the artifacts hash
 * match and every address still has code. Otherwise (the chain state file was lost, or the contracts changed) the
 * contracts are deployed again and the file rewritten; seedDemo then sees the new addresses and reseeds.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import {
  ContractFactory,
  keccak256,
  NonceManager,
  parseEther,
  toUtf8Bytes,
  Wallet,
  type Provider,
  type TransactionReceipt,
  type TransactionResponse,
} from "ethers";
import { CONTRACT_NAMES, type ContractName } from "../config.js";
import { loadArtifacts } from "./artifacts.js";
import { devChainDir } from "./devchain.js";
import { connectContract } from "./contracts.js";

export type ContractAddresses = Record<ContractName, string>;

export interface DeploymentRecord {
  chainId: number;
  deployer: string;
  /** keccak256 of the deployed artifacts: a changed contract means a new deployment. */
  artifactsHash: string;
  contracts: ContractAddresses;
}

export interface EnsureDeploymentOptions {
  provider: Provider;
  deployerKey: string;
  dataDir: string;
  chainId: number;
  log?: (line: string) => void;
}

/** Bond the demo machines post in IdentityRegistry (1.0 `minBond`: 1 native token). */
export const DEV_MIN_BOND = parseEther("1");

export function deploymentPath(dataDir: string): string {
  return path.join(devChainDir(dataDir), "deployment.json");
}

export function readDeployment(dataDir: string): DeploymentRecord | null {
  const file = deploymentPath(dataDir);
  return existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as DeploymentRecord) : null;
}

function artifactsHash(): string {
  return keccak256(toUtf8Bytes(JSON.stringify(loadArtifacts())));
}

async function hasCodeEverywhere(provider: Provider, contracts: ContractAddresses): Promise<boolean> {
  const codes = await Promise.all(CONTRACT_NAMES.map((name) => provider.getCode(contracts[name])));
  return codes.every((code) => code !== "0x");
}

export async function ensureDeployment(options: EnsureDeploymentOptions): Promise<ContractAddresses> {
  const log = options.log ?? (() => {});
  const previous = readDeployment(options.dataDir);
  const hash = artifactsHash();
  const deployer = new Wallet(options.deployerKey, options.provider);
  const same = previous?.chainId === options.chainId && previous.artifactsHash === hash && previous.deployer === deployer.address;
  if (previous && same) {
    if (await hasCodeEverywhere(options.provider, previous.contracts)) return previous.contracts;
    log("chain: recorded contracts have no code (chain state lost); redeploying and reseeding the demo fixture");
  } else if (previous) {
    log("chain: contracts, chain ID or deployer changed since the last deployment; redeploying");
  }

  const contracts = await deployAll(new NonceManager(deployer));
  const record: DeploymentRecord = {
    chainId: options.chainId,
    deployer: deployer.address,
    artifactsHash: hash,
    contracts,
  };
  mkdirSync(devChainDir(options.dataDir), { recursive: true });
  writeFileSync(deploymentPath(options.dataDir), `${JSON.stringify(record, null, 2)}\n`);
  log(`chain: deployed ${CONTRACT_NAMES.length} contracts (deployer ${deployer.address})`);
  return contracts;
}

async function deployAll(signer: NonceManager): Promise<ContractAddresses> {
  const artifacts = loadArtifacts();
  const deploy = async (name: ContractName, ...args: unknown[]): Promise<string> => {
    const factory = new ContractFactory(artifacts[name].abi, artifacts[name].bytecode, signer);
    const contract = await factory.deploy(...args);
    await minedReceipt(contract.deploymentTransaction());
    return contract.getAddress();
  };

  const machineNft = await deploy("MachineNFT");
  const identityStaking = await deploy("IdentityStaking");
  const identityRegistry = await deploy("IdentityRegistry", identityStaking, DEV_MIN_BOND);
  const contracts: ContractAddresses = {
    MachineNFT: machineNft,
    MachineRegistry: await deploy("MachineRegistry", machineNft),
    IdentityStaking: identityStaking,
    IdentityRegistry: identityRegistry,
    EventRegistry: await deploy("EventRegistry", identityRegistry, identityStaking),
    DidRegistry: await deploy("DidRegistry"),
    AdminFlags: await deploy("AdminFlags"),
    AttestationRegistry: await deploy("AttestationRegistry"),
    TestStablecoin: "",
    PaymentEscrow: "",
  };
  // Document 3 payments: the test stablecoin and the escrow holding it per order (payments-setup.ts sets operators).
  contracts.TestStablecoin = await deploy("TestStablecoin");
  contracts.PaymentEscrow = await deploy("PaymentEscrow", contracts.TestStablecoin);

  // Roles: the registry mints machine NFTs, only the identity registry stakes, the deployer attests.
  const deployerAddress = await signer.getAddress();
  await waitFor(connectContract("MachineNFT", contracts, signer).setMinter(contracts.MachineRegistry));
  await waitFor(connectContract("IdentityStaking", contracts, signer).setIdentityRegistry(identityRegistry));
  await waitFor(connectContract("AttestationRegistry", contracts, signer).setAttester(deployerAddress, true));
  return contracts;
}

/** Waits for a sent transaction to be mined and fails when it reverted. */
export async function waitFor(sent: Promise<TransactionResponse>): Promise<void> {
  await minedReceipt(await sent);
}

/**
 * The receipt of a sent transaction, asked for until it exists. ethers' `wait()` re-checks only when it sees a new
 * block after its first look; on an automining chain that mined the transaction just before that look, no further
 * block may ever come, and seeding the demo hung at start-up (seen under load). A reverted transaction throws.
 */
export async function minedReceipt(tx: TransactionResponse | null, timeoutMs = 60_000): Promise<TransactionReceipt> {
  const receipt = await polledReceipt(tx, timeoutMs);
  if (receipt.status !== 1) throw new Error(`transaction ${receipt.hash} reverted`);
  return receipt;
}

/** The receipt once it exists, reverted or not (callers that decode a revert themselves, like the CLI). */
export async function polledReceipt(tx: TransactionResponse | null, timeoutMs = 60_000): Promise<TransactionReceipt> {
  if (!tx) throw new Error("no transaction to wait for");
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const receipt = await tx.provider.getTransactionReceipt(tx.hash);
    if (receipt) return receipt;
    if (Date.now() > deadline) throw new Error(`transaction ${tx.hash} was not mined within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
