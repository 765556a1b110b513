import type { GraphQLSchema } from "graphql";
import { buildFederatedSchema, dependencyContainer } from "../shared/federation.js";
import { resolveMachineReference } from "./machine.reference.js";
import { VerificationResolver } from "./verification.resolver.js";
import { VerifyMachine } from "./machine.type.js";
import { ChipResolver } from "./chip.resolver.js";
import type { VerifyDeps } from "./deps.js";

/** The verify subgraph; without `deps` the schema is only good for printing SDL. */
export function buildVerifySchema(deps?: VerifyDeps): Promise<GraphQLSchema> {
  return buildFederatedSchema({
    resolvers: [VerificationResolver, ChipResolver],
    orphanedTypes: [VerifyMachine],
    container: deps ? dependencyContainer(deps) : undefined,
    referenceResolvers: { Machine: { __resolveReference: resolveMachineReference } },
  });
}
