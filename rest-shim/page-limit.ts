/**
 * The per-IP limit of the documentation the listeners serve beside the API: `/openapi.json` and the Swagger UI page
 * with its assets on the REST listeners (`/docs`, `/docs/assets/*`), `/supergraph.graphql` and GraphiQL on the
 * GraphQL listener. One counter, `docsPerIp` (RATE_LIMIT_DOCS_PER_IP per RATE_LIMIT_WINDOW_MS), shared by every such
 * path of a process, so a client fetching these (multi-megabyte) bundles in a loop is refused like any API client.
 * It is a route-level hook of these routes only: the API routes' hot path is untouched.
 */
import type { FastifyReply, FastifyRequest, onRequestHookHandler } from "fastify";
import type { PlatformConfig } from "../subgraphs/shared/config.js";
import type { RateLimiter } from "./rate-limit.js";

export const DOCS_LIMIT = "docsPerIp";

/** What a refused page request gets: the listener's own 429 envelope. */
export type PageRefusal = (request: FastifyRequest, reply: FastifyReply, limit: number, windowMs: number) => FastifyReply;

export function pageLimit(limiter: RateLimiter, rateLimits: PlatformConfig["rateLimits"], refuse: PageRefusal): onRequestHookHandler {
  const rule = { name: DOCS_LIMIT, limit: rateLimits.docsPerIp };
  return async function limitPages(request, reply) {
    if ((await limiter.exceeded([rule], request.ip)) === undefined) return;
    return refuse(request, reply, rule.limit, rateLimits.windowMs);
  };
}
