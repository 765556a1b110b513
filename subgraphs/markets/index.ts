/** Builds the markets subgraph (document 3) from the shared runtime. */
import type { BuiltSubgraph, SubgraphRuntime } from "../shared/runtime.js";
import { MarketsMachineRepository } from "./machine.repository.js";
import { buildMarketsSchema } from "./schema.js";

export type MarketsServices = Record<string, never>;

export async function buildMarketsSubgraph(runtime: SubgraphRuntime): Promise<BuiltSubgraph<MarketsServices>> {
  const schema = await buildMarketsSchema({ machines: new MarketsMachineRepository(runtime.db, runtime.log) });
  return { schema, services: {} };
}
