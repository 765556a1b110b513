/** Document 3 (machine markets and the stream marketplace, under /api/v1 on the markets listener). */
import type { ShimOperation } from "../executor.js";
import type { RouteDefinition } from "../route-definition.js";

export const MARKETS_OPERATIONS: Record<string, ShimOperation> = {};

export const MARKETS_ROUTES: readonly RouteDefinition[] = [];
