/** Settings of the ratings subgraph and its REST routes (document 2). */
import type { Env } from "./env.js";

// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface RatingsConfig {}

export function loadRatingsConfig(_env: Env): RatingsConfig {
  return {};
}
