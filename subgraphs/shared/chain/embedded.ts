/**
 * One call for the process entry: the chain the platform reads, with contract addresses (and the demo fixture when
 * the chain is embedded).
 *
 * - `CHAIN_RPC_URL` set: an external node; addresses come from `<NAME>_ADDRESS`; nothing is started, deployed or seeded.
 * - otherwise: anvil under `<dataDir>/chain`, contracts deployed (or reused), demo seeded when `config.seedDemo`.
 */
import { NonceManager, parseEther, toBeHex, Wallet } from "ethers";
import type { ContractName, PlatformConfig } from "../config.js";
import { ensureDeployment } from "./deploy.js";
import type { DemoFixture } from "./demo-fixture.js";
import { seedDemo } from "./demo.js";
import { ANVIL_DEFAULT_KEYS, DEV_DEPLOYER_KEY } from "./dev-keys.js";
import { startDevChain } from "./devchain.js";
import { ensureEscrowOperator } from "./payments-setup.js";
import { createProvider } from "./rpc.js";

export interface PlatformChain {
  rpcUrl: string;
  chainId: number;
  addresses: Partial<Record<ContractName, string>>;
  /** Present when the embedded chain was seeded. */
  demo: DemoFixture | null;
  /** Stops the embedded node (state is dumped); a no-op for an external node. */
  stop(): Promise<void>;
}

export async function openPlatformChain(
  config: PlatformConfig,
  log: (line: string) => void = () => {},
): Promise<PlatformChain> {
  const { chain } = config;
  if (chain.rpcUrl) {
    return { rpcUrl: chain.rpcUrl, chainId: chain.chainId, addresses: chain.addresses, demo: null, stop: async () => {} };
  }

  const devChain = await startDevChain({ dataDir: config.dataDir, port: chain.anvilPort, chainId: chain.chainId, log });
  const provider = createProvider(devChain.rpcUrl, { chainId: chain.chainId, timeoutMs: chain.requestTimeoutMs });
  try {
    // The deployer is the contracts' admin and attester: OPERATOR_PRIVATE_KEY when set (funded here, since anvil only
    // funds its own well-known accounts), else anvil's account 0.
    const deployerKey = chain.operatorKey ?? DEV_DEPLOYER_KEY;
    if (chain.operatorKey) {
      await provider.send("anvil_setBalance", [new Wallet(chain.operatorKey).address, toBeHex(parseEther("1000"))]);
    }
    // A configured faucet key (FAUCET_PRIVATE_KEY; its default, anvil's account 9, is refused off loopback) is funded
    // the same way, so that the faucet works on the embedded chain with a key of the operator's own.
    const faucetKey = config.ratings.faucet.privateKey;
    if (faucetKey && !ANVIL_DEFAULT_KEYS.includes(faucetKey.toLowerCase())) {
      await provider.send("anvil_setBalance", [new Wallet(faucetKey).address, toBeHex(parseEther("1000"))]);
    }
    const contracts = await ensureDeployment({
      provider,
      deployerKey,
      dataDir: config.dataDir,
      chainId: chain.chainId,
      log,
    });
    // Document 3 payments: the escrow operator (ESCROW_OPERATOR_KEY, dev default anvil's account 1) may release and refund.
    const escrowOperator = config.payments.escrowOperatorKey ? new Wallet(config.payments.escrowOperatorKey).address : undefined;
    if (escrowOperator) {
      await ensureEscrowOperator(provider, new NonceManager(new Wallet(deployerKey, provider)), contracts, escrowOperator);
    }
    const demo = config.seedDemo
      ? await seedDemo({
          provider,
          deployerKey,
          dataDir: config.dataDir,
          rpcUrl: devChain.rpcUrl,
          chainId: chain.chainId,
          contracts,
          didMethod: config.namespace.didMethod,
          onboardingTokens: config.onboardingTokens,
          escrowOperator,
          log,
        })
      : null;
    log(`chain: embedded anvil at ${devChain.rpcUrl} (chain ID ${chain.chainId})`);
    return {
      rpcUrl: devChain.rpcUrl,
      chainId: chain.chainId,
      addresses: { ...contracts, ...chain.addresses },
      demo,
      stop: devChain.stop,
    };
  } catch (error) {
    await devChain.stop();
    throw error;
  } finally {
    provider.destroy();
  }
}
