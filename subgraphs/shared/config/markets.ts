/** Settings of the markets subgraph and its REST routes (document 3). */
import type { Env } from "./env.js";

// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface MarketsConfig {}

export function loadMarketsConfig(_env: Env): MarketsConfig {
  return {};
}
