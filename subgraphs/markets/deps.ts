import type { MarketsServices } from "./index.js";

/** What the markets resolvers get: the subgraph's services, as each family's index.ts builds them. */
export type MarketsDeps = MarketsServices;
