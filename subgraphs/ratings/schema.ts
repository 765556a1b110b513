import type { GraphQLSchema } from "graphql";
import { buildFederatedSchema, dependencyContainer } from "../shared/federation.js";
import { AltchainResolver } from "./altchain/altchain.resolver.js";
import type { RatingsDeps } from "./deps.js";
import { FaucetResolver } from "./faucet/faucet.resolver.js";
import { MachineResolver } from "./machine.resolver.js";
import { RatingsMachine } from "./machine.type.js";
import { MonetizationResolver } from "./monetization/monetization.resolver.js";
import { ProbeResolver } from "./probe.resolver.js";
import { RatingResolver } from "./rating.resolver.js";

/** The ratings subgraph (document 2); without `deps` the schema is only good for printing SDL. */
export function buildRatingsSchema(deps?: RatingsDeps): Promise<GraphQLSchema> {
  return buildFederatedSchema({
    resolvers: [ProbeResolver, RatingResolver, MachineResolver, MonetizationResolver, AltchainResolver, FaucetResolver],
    orphanedTypes: [RatingsMachine],
    container: deps ? dependencyContainer(deps) : undefined,
    referenceResolvers: {
      Machine: { __resolveReference: (ref: { machineId: string }) => Object.assign(new RatingsMachine(), ref) },
    },
  });
}
