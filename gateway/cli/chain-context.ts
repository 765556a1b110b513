/**
 * Where the CLI finds the chain, the contracts and the keys.
 *
 * - RPC URL: `CHAIN_RPC_URL`, else the rpcUrl recorded in `<DATA_DIR>/demo.json` (the platform's embedded chain must
 *   be running).
 * - Contracts: `<NAME>_ADDRESS` variables, else `<DATA_DIR>/chain/deployment.json`, else demo.json.
 * - Admin/attester key: `OPERATOR_PRIVATE_KEY`, else (dev mode: an embedded deployment exists) anvil's account 0.
 * - Owner/operator keys: `--key`, else the demo fixture's key when the machine is a demo machine.
 */
import {
  isError,
  Wallet,
  type ContractTransactionReceipt,
  type ContractTransactionResponse,
  type JsonRpcProvider,
} from "ethers";
import { loadConfig, type ContractName, type PlatformConfig } from "../../subgraphs/shared/config.js";
import { connectContract, decodeRevert } from "../../subgraphs/shared/chain/contracts.js";
import { polledReceipt, readDeployment } from "../../subgraphs/shared/chain/deploy.js";
import { readDemoFixture, type DemoFixture, type DemoMachine } from "../../subgraphs/shared/chain/demo-fixture.js";
import { DEV_DEPLOYER_KEY } from "../../subgraphs/shared/chain/dev-keys.js";
import { createProvider, fetchChainId } from "../../subgraphs/shared/chain/rpc.js";
import { CliError, progress } from "./command.js";

export class CliChain {
  private constructor(
    readonly config: PlatformConfig,
    readonly provider: JsonRpcProvider,
    readonly addresses: Partial<Record<ContractName, string>>,
    readonly demo: DemoFixture | null,
  ) {}

  static async open(config: PlatformConfig = loadConfig()): Promise<CliChain> {
    const demo = readDemoFixture(config.dataDir);
    const rpcUrl = config.chain.rpcUrl ?? demo?.rpcUrl;
    if (!rpcUrl) {
      throw new CliError(`no chain: set CHAIN_RPC_URL, or start the platform so ${config.dataDir}/demo.json exists`);
    }
    let chainId: bigint;
    try {
      chainId = await fetchChainId(rpcUrl, config.chain.requestTimeoutMs);
    } catch {
      throw new CliError(`chain at ${rpcUrl} is not answering (is the platform running?)`);
    }
    const recorded = readDeployment(config.dataDir)?.contracts ?? demo?.contracts ?? {};
    const addresses = { ...recorded, ...config.chain.addresses };
    const provider = createProvider(rpcUrl, { chainId, timeoutMs: config.chain.requestTimeoutMs });
    return new CliChain(config, provider, addresses, demo);
  }

  close(): void {
    this.provider.destroy();
  }

  /** The admin and attester: OPERATOR_PRIVATE_KEY, or the embedded chain's deployer in dev mode. */
  adminSigner(): Wallet {
    const key = this.config.chain.operatorKey ?? (readDeployment(this.config.dataDir) ? DEV_DEPLOYER_KEY : undefined);
    if (!key) throw new CliError("set OPERATOR_PRIVATE_KEY (the admin/attester key)");
    return this.wallet(key);
  }

  wallet(privateKey: string): Wallet {
    try {
      return new Wallet(privateKey, this.provider);
    } catch {
      throw new CliError("invalid private key");
    }
  }

  demoMachine(machineId: bigint): DemoMachine | undefined {
    return this.demo?.machines.find((machine) => machine.machineId === machineId.toString());
  }

  contract(name: ContractName, signer: Wallet) {
    if (!this.addresses[name]) throw new CliError(`no address for ${name}: set ${name} in deployment.json or the env`);
    return connectContract(name, this.addresses, signer);
  }

  async latestTimestamp(): Promise<number> {
    const block = await this.provider.getBlock("latest");
    if (!block) throw new CliError("could not read the latest block");
    return block.timestamp;
  }
}

/** Runs `action` against the chain and turns ethers failures (reverts, RPC errors) into one-line CLI errors. */
export async function withChain<T>(action: (chain: CliChain) => Promise<T>): Promise<T> {
  const chain = await CliChain.open();
  try {
    return await action(chain);
  } catch (error) {
    throw describeChainError(error);
  } finally {
    chain.close();
  }
}

function describeChainError(error: unknown): unknown {
  if (error instanceof CliError) return error;
  if (isError(error, "CALL_EXCEPTION")) {
    const decoded = typeof error.data === "string" ? decodeRevert(error.data) : null;
    const reason = decoded ?? error.revert?.signature ?? error.reason ?? "unknown reason";
    return new CliError(`transaction reverted: ${reason}`);
  }
  if (isError(error, "INSUFFICIENT_FUNDS")) return new CliError("the signing key has no funds for gas");
  if (error instanceof Error && "shortMessage" in error) return new CliError(String(error.shortMessage));
  return error;
}

/** Sends a transaction, reports progress on stderr, waits for it to be mined and returns the receipt. */
export async function transact(
  label: string,
  sent: Promise<ContractTransactionResponse>,
): Promise<ContractTransactionReceipt> {
  progress(`${label}: sending`);
  const tx = await sent;
  progress(`${label}: ${tx.hash} sent, waiting for it to be mined`);
  // ethers' wait() alone can miss a transaction the automining dev chain mined just before its first look, and then
  // wait for a block that never comes (deploy.ts): the receipt is polled first; wait() then parses it or names the revert.
  await polledReceipt(tx);
  const receipt = await tx.wait();
  if (!receipt) throw new CliError(`${label}: no receipt`);
  progress(`${label}: mined in block ${receipt.blockNumber}`);
  return receipt;
}
