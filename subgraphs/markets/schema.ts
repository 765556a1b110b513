/** The markets subgraph's federated schema: every family's resolver classes, listed by the family's index.ts. */
import type { GraphQLSchema } from "graphql";
import { buildFederatedSchema, dependencyContainer } from "../shared/federation.js";
import { MarketsErrors } from "./common/errors.js";
// Import order is registration order: it fixes the order of types and fields in the printed SDL.
import type { MarketsDeps } from "./deps.js";
import { MarketsMachine } from "./machines/machine.type.js";
import { MACHINE_RESOLVERS } from "./machines/index.js";
import { MACHINE_AGENT_PLAIN_FIELDS } from "./machines/machine-agent.resolver.js";
import { AUDIT_RESOLVERS } from "./audit/index.js";
import { MACHINE_WORK_RESOLVERS, WORK_RESOLVERS } from "./work/index.js";
import { POLICY_RESOLVERS } from "./policies/index.js";
import { ORDER_RESOLVERS } from "./orders/index.js";
import { STREAM_ORDER_RESOLVERS } from "./stream/orders/index.js";
import { STREAM_PURCHASE_RESOLVERS } from "./stream/purchases/index.js";
import { STREAM_SELLER_RESOLVERS } from "./stream/seller/index.js";

export function buildMarketsSchema(deps?: MarketsDeps): Promise<GraphQLSchema> {
  return buildFederatedSchema({
    resolvers: [...MACHINE_RESOLVERS, ...WORK_RESOLVERS, ...POLICY_RESOLVERS, ...AUDIT_RESOLVERS, ...MACHINE_WORK_RESOLVERS, ...ORDER_RESOLVERS, ...STREAM_SELLER_RESOLVERS,
      ...STREAM_ORDER_RESOLVERS, ...STREAM_PURCHASE_RESOLVERS],
    orphanedTypes: [MarketsMachine],
    container: deps ? dependencyContainer(deps) : undefined,
    referenceResolvers: {
      Machine: { __resolveReference: (ref: { machineId: string }) => Object.assign(new MarketsMachine(), ref) },
    },
    // Labels, names, JSON data and IDs go to the database as given: U+0000 or a lone surrogate is VALIDATION_ERROR.
    refuseUnstorableText: MarketsErrors.validation,
    plainFields: deps ? MACHINE_AGENT_PLAIN_FIELDS : undefined,
  });
}
