import type { ChainReads } from "../shared/chain/types.js";
import type { MonetizationRepository } from "./monetization.repository.js";

export interface RatingsDeps {
  chain: ChainReads;
  monetization: Pick<MonetizationRepository, "find">;
}
