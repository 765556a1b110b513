import type { GraphQLSchema } from "graphql";
import { buildFederatedSchema, dependencyContainer } from "../shared/federation.js";
import { RatingsMachine } from "./monetization.type.js";
import { MachineMonetizationResolver } from "./monetization.resolver.js";
import { ProbeResolver } from "./probe.resolver.js";
import type { RatingsDeps } from "./deps.js";

export function buildRatingsSchema(deps?: RatingsDeps): Promise<GraphQLSchema> {
  return buildFederatedSchema({
    resolvers: [ProbeResolver, MachineMonetizationResolver],
    orphanedTypes: [RatingsMachine],
    container: deps ? dependencyContainer(deps) : undefined,
    referenceResolvers: {
      Machine: { __resolveReference: (ref: { machineId: string }) => Object.assign(new RatingsMachine(), ref) },
    },
  });
}
