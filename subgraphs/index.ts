/** The three subgraphs by name; the single place that lists them. */
import type { GraphQLSchema } from "graphql";
import { buildVerifySchema } from "./verify/schema.js";
import { buildRatingsSchema } from "./ratings/schema.js";
import { buildMarketsSchema } from "./markets/schema.js";

export const SUBGRAPH_NAMES = ["verify", "ratings", "markets"] as const;
export type SubgraphName = (typeof SUBGRAPH_NAMES)[number];

/** Schemas without dependencies: for printing SDL and composing the supergraph. */
export const schemaBuilders: Record<SubgraphName, () => Promise<GraphQLSchema>> = {
  verify: () => buildVerifySchema(),
  ratings: () => buildRatingsSchema(),
  markets: () => buildMarketsSchema(),
};
