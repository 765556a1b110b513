/**
 * The machines family: identity challenges (a controller-signed proof of a machine's DID), machine records bound to
 * on-chain identity, runtime endpoints, and machine agents with their heartbeats. Built from the runtime for the
 * subgraph's index.ts; `MACHINE_RESOLVERS` are its GraphQL resolver classes.
 */
import type { Clock } from "../../shared/clock.js";
import { SecretBox } from "../../shared/crypto/secret-box.js";
import type { SubgraphRuntime } from "../../shared/runtime.js";
import type { MarketsStore } from "../common/store.js";
import { pairingSecrets } from "../orders/pairing.token.js";
import { IdentityChallengeService } from "./identity/identity-challenge.service.js";
import { MachineSessionResolver } from "./identity/machine-session.resolver.js";
import { MachineSessionService } from "./identity/machine-session.service.js";
import { MachineSessionTokens } from "./identity/machine-session.token.js";
import { IdentityResolver } from "./identity/identity.resolution.js";
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
  /** Machine sessions: `authorize(token, machineId)` is the machine's authority for its writes. */
  machineSessions: MachineSessionService;
  marketMachines: MarketMachineService;
  /** Runtime endpoints; `resolveForExecution(tx, machineId, providerKey)` gives the task executor URL and credentials. */
  runtimeEndpoints: RuntimeEndpointService;
  machineAgents: MachineAgentService;
}

export const MACHINE_RESOLVERS = [MarketsMachineResolver, MarketMachineResolver, RuntimeEndpointResolver, MachineAgentResolver, MachineSessionResolver] as const;

/**
 * `identity` is the subgraph's one identity resolver: the store's guard (global rule 1) reads the same per-block
 * answers the machine records and sessions do.
 */
export function buildMachineServices(runtime: SubgraphRuntime, store: MarketsStore, identity: IdentityResolver, clock: Clock): MachineServices {
  const settings = runtime.config.markets;
  const identityChallenges = new IdentityChallengeService(
    store,
    identity,
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
  // The same secrets as the pairing and delivery tokens; the audience keeps the kinds apart.
  const sessionTokens = new MachineSessionTokens(
    pairingSecrets(settings.pairingJwtSecrets, runtime.config.dataDir),
    runtime.config.namespace.didMethod,
    settings.machineSessionTtlSeconds,
  );
  const machineSessions = new MachineSessionService(store, identityChallenges, sessionTokens, settings.identityVerification, clock);
  return { identityChallenges, machineSessions, marketMachines, runtimeEndpoints, machineAgents };
}
