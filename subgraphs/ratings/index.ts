/** Builds the ratings subgraph (document 2) from the shared runtime. */
import type { BuiltSubgraph, SubgraphRuntime } from "../shared/runtime.js";
import { MonetizationRepository } from "./monetization.repository.js";
import { buildRatingsSchema } from "./schema.js";

export type RatingsServices = Record<string, never>;

export async function buildRatingsSubgraph(runtime: SubgraphRuntime): Promise<BuiltSubgraph<RatingsServices>> {
  const { db, chain, log } = runtime;
  const schema = await buildRatingsSchema({ chain, monetization: new MonetizationRepository(db, log) });
  return { schema, services: {} };
}
