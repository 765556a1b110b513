import type { ChainReads } from "../shared/chain/types.js";
import type { AltchainService } from "./altchain/altchain.service.js";
import type { CardService } from "./card.service.js";
import type { FaucetService } from "./faucet/faucet.service.js";
import type { TwoFactorService } from "./faucet/two-factor.service.js";
import type { MonetizationService } from "./monetization/monetization.service.js";
import type { OperatorService } from "./operator.service.js";
import type { ProfileService } from "./profile.service.js";
import type { ScorecardService } from "./scorecard.service.js";

/** What the ratings subgraph's resolvers need; built once per process by `buildRatingsSubgraph` (index.ts). */
export interface RatingsDeps {
  chain: ChainReads;
  didMethod: string;
  scorecards: ScorecardService;
  profiles: ProfileService;
  operators: OperatorService;
  cards: CardService;
  monetization: MonetizationService;
  altchain: AltchainService;
  twoFactor: TwoFactorService;
  faucet: FaucetService;
}
