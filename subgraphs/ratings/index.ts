/**
 * Builds the ratings subgraph (document 2) from the shared runtime: its services, schema, the 2.0 ownership-index
 * sync job, and in dev mode the embedded second-chain binding node (started here like anvil is for the chain).
 */
import { systemClock } from "../shared/clock.js";
import type { BackgroundJob, BuiltSubgraph, SubgraphRuntime } from "../shared/runtime.js";
import { AltchainService } from "./altchain/altchain.service.js";
import { BindingClient } from "./altchain/binding-client.js";
import { startBindingNode, type BindingNode } from "./altchain/dev-node.js";
import { CardService } from "./card.service.js";
import { RatingsChain } from "./chain/ratings-chain.js";
import { FaucetWallet } from "./faucet/faucet-wallet.js";
import { FaucetRepository } from "./faucet/faucet.repository.js";
import { FaucetService } from "./faucet/faucet.service.js";
import { TwoFactorRepository } from "./faucet/two-factor.repository.js";
import { TwoFactorService } from "./faucet/two-factor.service.js";
import { MachineDirectory } from "./machine-directory.service.js";
import { McrService } from "./scoring/mcr.service.js";
import { MonetizationRepository } from "./monetization/monetization.repository.js";
import { MonetizationService } from "./monetization/monetization.service.js";
import { OperatorService } from "./operator.service.js";
import { OwnershipIndexRepository } from "./chain/ownership-index.repository.js";
import { OwnershipIndexService } from "./chain/ownership-index.service.js";
import { ProfileService } from "./profile.service.js";
import { buildRatingsSchema } from "./schema.js";
import { ScorecardService } from "./scorecard.service.js";
import { rateSourceFor } from "./scoring/fx.js";

export interface RatingsServices {
  mcr: McrService;
  ownershipIndex: OwnershipIndexService;
  /** URL of the second-chain node the lookups use (the embedded one in dev mode), or null when none. */
  altchainRpcUrl: string | null;
  /** The block the chain reader is pinned to (tests wait for a write to become visible). */
  pinnedBlock(): number | null;
}

export async function buildRatingsSubgraph(runtime: SubgraphRuntime): Promise<BuiltSubgraph<RatingsServices>> {
  const { config, db, log } = runtime;
  const settings = config.ratings;
  const clock = runtime.clock ?? systemClock;
  const didMethod = config.namespace.didMethod;
  const chain = new RatingsChain(runtime.chain, runtime.chain.addresses);
  // Document 2: the chain ID is read from the RPC at startup; the configured one if the node cannot say then.
  const chainId = await runtime.chain.chainId().catch(() => String(config.chain.chainId));

  const rates = rateSourceFor(settings.fx.source, settings.fx.maxAgeSeconds);
  const mcr = new McrService(chain, rates, clock, settings.mcrCacheTtlSeconds, log);
  const unsubscribe = runtime.chain.onNewHead(mcr.onNewHead);
  const directory = new MachineDirectory(chain, didMethod);
  const ownershipIndex = new OwnershipIndexService(chain, new OwnershipIndexRepository(db), settings.v2.indexBatchBlocks, clock);
  const scorecards = new ScorecardService(directory, mcr, didMethod);
  const operators = new OperatorService(directory, mcr, ownershipIndex, settings.v2.indexMaxLagBlocks, didMethod);

  const bindingNode = await startEmbeddedBindingNode(runtime);
  const altchainRpcUrl = settings.altchain.rpcUrl ?? bindingNode?.url ?? null;
  const bindingClient = altchainRpcUrl ? new BindingClient(altchainRpcUrl, settings.altchain.programId, settings.altchain.timeoutMs) : null;

  const twoFactorRepository = new TwoFactorRepository(db);
  const twoFactor = new TwoFactorService(twoFactorRepository, settings.faucet, clock, chainId);
  const faucetWallet = settings.faucet.privateKey
    ? new FaucetWallet(runtime.rpcUrl, settings.faucet.privateKey, config.chain.chainId, config.chain.requestTimeoutMs)
    : null;

  const schema = await buildRatingsSchema({
    chain: runtime.chain,
    didMethod,
    scorecards,
    profiles: new ProfileService(directory, mcr, runtime.outbound, rates, didMethod, log),
    operators,
    cards: new CardService(directory, chainId, didMethod),
    monetization: new MonetizationService(
      directory,
      new MonetizationRepository(db),
      settings.monetization,
      didMethod,
      chainId,
      clock,
      log,
    ),
    altchain: new AltchainService(bindingClient, settings.altchain.cacheTtlSeconds, clock, scorecards, operators, didMethod),
    twoFactor,
    faucet: new FaucetService(new FaucetRepository(db, twoFactorRepository), twoFactor, faucetWallet, settings.faucet, chainId, clock, log),
  });
  const jobs: BackgroundJob[] = [
    { name: "2.0 ownership index sync", intervalMs: settings.v2.indexSyncMs, run: () => ownershipIndex.sync() },
  ];
  return {
    schema,
    services: { mcr, ownershipIndex, altchainRpcUrl, pinnedBlock: () => runtime.chain.pinnedBlock },
    jobs,
    async close() {
      unsubscribe();
      await ownershipIndex.idle();
      faucetWallet?.close();
      await bindingNode?.close();
    },
  };
}

/** Dev mode (embedded chain) without ALTCHAIN_RPC_URL: serve the demo fixture's bindings (none without a demo). */
async function startEmbeddedBindingNode(runtime: SubgraphRuntime): Promise<BindingNode | null> {
  const { config } = runtime;
  if (config.ratings.altchain.rpcUrl || config.chain.rpcUrl) return null;
  // Only this process reads it: it listens on loopback whatever HOST the public listeners bind.
  return startBindingNode({
    host: "127.0.0.1",
    port: config.ratings.altchain.port,
    programId: config.ratings.altchain.programId,
    bindings: runtime.demo?.ratings.altchainBindings ?? [],
  });
}
