/**
 * The machines family: identity challenges (a controller-signed proof of a machine's DID), machine records bound to
 * on-chain identity, runtime endpoints, and machine agents with their heartbeats. Built from the runtime for the
 * subgraph's index.ts; `MACHINE_RESOLVERS` are its GraphQL resolver classes.
 */
import type { Clock } from "../../shared/clock.js";
import { SecretBox } from "../../shared/crypto/secret-box.js";
import type { SubgraphRuntime } from "../../shared/runtime.js";
import type { MarketsStore } from "../common/store.js";
import { IdentityChallengeService } from "./identity-challenge.service.js";
import { IdentityResolver } from "./identity.resolution.js";
import { MachineAgentRepository } from "./machine-agent.repository.js";
// Resolvers in registration order (the order of fields in the printed SDL).
import { MarketsMachineResolver } from "./machine.resolver.js";
import { MarketMachineResolver } from "./market-machine.resolver.js";
import { MachineAgentResolver } from "./machine-agent.resolver.js";
import { RuntimeEndpointResolver } from "./runtime-endpoint.resolver.js";
import { MachineAgentService } from "./machine-agent.service.js";
import { MarketMachineRepository } from "./market-machine.repository.js";
import { MarketMachineService } from "./market-machine.service.js";
import { RuntimeEndpointRepository } from "./runtime-endpoint.repository.js";
import { RuntimeEndpointService } from "./runtime-endpoint.service.js";

export interface MachineServices {
  identityChallenges: IdentityChallengeService;
  marketMachines: MarketMachineService;
  /** Runtime endpoints; `resolveForExecution(tx, machineId, providerKey)` gives the task executor URL and credentials. */
  runtimeEndpoints: RuntimeEndpointService;
  machineAgents: MachineAgentService;
}

export const MACHINE_RESOLVERS = [MarketsMachineResolver, MarketMachineResolver, RuntimeEndpointResolver, MachineAgentResolver] as const;

export function buildMachineServices(runtime: SubgraphRuntime, store: MarketsStore, clock: Clock): MachineServices {
  const settings = runtime.config.markets;
  const identityChallenges = new IdentityChallengeService(
    store,
    new IdentityResolver(runtime.chain),
    runtime.config.namespace.didMethod,
    settings.identityChallengeTtlSeconds,
    clock,
  );
  const marketMachines = new MarketMachineService(
    store,
    new MarketMachineRepository(store),
    identityChallenges,
    settings.identityVerification,
    clock,
  );
  const secrets = settings.secretsKey ? new SecretBox(settings.secretsKey) : null;
  const runtimeEndpoints = new RuntimeEndpointService(store, new RuntimeEndpointRepository(), secrets, clock);
  const machineAgents = new MachineAgentService(
    store,
    runtimeEndpoints,
    new MachineAgentRepository(),
    { maxLeaseSeconds: settings.maxLeaseSeconds, maxEndpoints: settings.maxHeartbeatEndpoints },
    clock,
  );
  return { identityChallenges, marketMachines, runtimeEndpoints, machineAgents };
}
