import type { GraphQLSchema } from "graphql";
import { buildFederatedSchema, dependencyContainer } from "../shared/federation.js";
import { MarketsMachine } from "./machine.type.js";
import { MarketsMachineResolver } from "./machine.resolver.js";
import { MarketMachineResolver } from "./market-machine.resolver.js";
import { MachineAgentResolver } from "./machine-agent.resolver.js";
import { RuntimeEndpointResolver } from "./runtime-endpoint.resolver.js";
import type { MarketsDeps } from "./deps.js";
import { WORK_RESOLVERS } from "./work.resolvers.js";

export function buildMarketsSchema(deps?: MarketsDeps): Promise<GraphQLSchema> {
  return buildFederatedSchema({
    resolvers: [MarketsMachineResolver, MarketMachineResolver, RuntimeEndpointResolver, MachineAgentResolver, ...WORK_RESOLVERS],
    orphanedTypes: [MarketsMachine],
    container: deps ? dependencyContainer(deps) : undefined,
    referenceResolvers: {
      Machine: { __resolveReference: (ref: { machineId: string }) => Object.assign(new MarketsMachine(), ref) },
    },
  });
}
