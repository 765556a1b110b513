/**
 * Document 3: machine identity challenges, machines, runtime endpoints and machine-side agents
 * (entries built with `marketsRoute` from markets-http.ts).
 */
import type { ShimOperation } from "../executor.js";
import type { RouteDefinition } from "../route-definition.js";

export const MACHINE_OPERATIONS: Record<string, ShimOperation> = {};

export const MACHINE_ROUTES: readonly RouteDefinition[] = [];
