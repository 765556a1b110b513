/**
 * The table of the three subgraph builders. Each subgraph builds its own services and schema from the shared
 * runtime (`subgraphs/<name>/index.ts`); the `all` role builds all three in-process, `subgraph <name>` builds one.
 */
import type { SubgraphName } from "../subgraphs/index.js";
import type { BuiltSubgraph, SubgraphRuntime } from "../subgraphs/shared/runtime.js";
import { buildVerifySubgraph, type VerifyServices } from "../subgraphs/verify/index.js";
import { buildRatingsSubgraph, type RatingsServices } from "../subgraphs/ratings/index.js";
import { buildMarketsSubgraph, type MarketsServices } from "../subgraphs/markets/index.js";

export interface SubgraphServices {
  verify: VerifyServices;
  ratings: RatingsServices;
  markets: MarketsServices;
}

export const SUBGRAPH_BUILDERS: { [N in SubgraphName]: (runtime: SubgraphRuntime) => Promise<BuiltSubgraph<SubgraphServices[N]>> } = {
  verify: buildVerifySubgraph,
  ratings: buildRatingsSubgraph,
  markets: buildMarketsSubgraph,
};
