import type { MarketsServices } from "./index.js";
import type { MarketsMachineRepository } from "./machines/machine.repository.js";

/** What the markets resolvers get: the subgraph's services plus the on-chain-keyed registration reader. */
export interface MarketsDeps extends MarketsServices {
  machines: Pick<MarketsMachineRepository, "find">;
}
