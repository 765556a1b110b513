/** Every named GraphQL operation behind a REST route, by name (the entries live beside their routes). */
import { VERIFY_OPERATIONS } from "./routes/verify.js";
import { RATINGS_OPERATIONS } from "./routes/ratings.js";
import { MONETIZATION_OPERATIONS } from "./routes/ratings-monetization.js";
import { FAUCET_OPERATIONS } from "./routes/faucet.js";
import { MARKETS_OPERATIONS } from "./routes/markets/index.js";

export const OPERATIONS = {
  ...RATINGS_OPERATIONS,
  ...MONETIZATION_OPERATIONS,
  ...FAUCET_OPERATIONS,
  ...VERIFY_OPERATIONS,
  ...MARKETS_OPERATIONS,
} as const;
