/**
 * Document 3: graph, service catalogue and search, tasks, routes, outcomes, runs, policies and audit events
 * (entries built with `marketsRoute` from markets-http.ts).
 */
import type { ShimOperation } from "../executor.js";
import type { RouteDefinition } from "../route-definition.js";

export const WORK_OPERATIONS: Record<string, ShimOperation> = {};

export const WORK_ROUTES: readonly RouteDefinition[] = [];
