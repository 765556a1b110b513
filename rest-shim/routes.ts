/**
 * The REST contract as data: one entry per documented route, each bound to exactly one named GraphQL operation.
 * This table is the one place that says which route maps to which operation; the entries live by API family in
 * `routes/<family>.ts`, the entry type and the listeners' areas in `route-definition.ts`.
 *
 * An entry says where the route lives (listener, area), which HTTP rules run before its body is read, which per-IP
 * limits count it, how its GraphQL variables come from the request and how `data` becomes the response. Adding a
 * route is adding an entry; server.ts compiles the table once at startup.
 */
import type { RouteDefinition } from "./route-definition.js";
import { VERIFY_ROUTES } from "./routes/verify.js";
import { RATINGS_ROUTES } from "./routes/ratings.js";
import { MONETIZATION_ROUTES } from "./routes/ratings-monetization.js";
import { FAUCET_ROUTES } from "./routes/faucet.js";
import { MARKETS_ROUTES } from "./routes/markets/index.js";

export * from "./route-definition.js";

export const ROUTES: readonly RouteDefinition[] = [
  ...RATINGS_ROUTES,
  ...MONETIZATION_ROUTES,
  ...FAUCET_ROUTES,
  ...VERIFY_ROUTES,
  ...MARKETS_ROUTES,
];
