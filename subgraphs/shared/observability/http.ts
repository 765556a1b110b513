/**
 * What every listener does per request besides answering it, in two Fastify hooks:
 * - `onRequest`: returns the request ID in `x-request-id` (the client's, when it sent a well-formed one; else a new
 *   UUID: see `requestIdOptions`);
 * - `onResponse`: the request's metrics (count and latency by route pattern, 429s as rate-limit refusals) and its
 *   one log line (method, route pattern, status, duration, request ID, client IP).
 * The route label is the pattern the router matched (`/mcr/:did`), never the raw path: bounded by the route table,
 * and free of identifiers and tokens.
 */
import { randomUUID } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { FastifyInstance } from "fastify";
import { REQUEST_ID_HEADER } from "../context.js";
import type { PlatformLog } from "./log.js";
import { rateLimitRefusals, restRequestDuration, restRequests } from "./metrics.js";

/** A client's request ID is kept when it is short and plain; anything else could inject text into log lines. */
const WELL_FORMED_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Fastify options: the request ID comes from `x-request-id` when well formed, else a new UUID. */
export const requestIdOptions = {
  requestIdHeader: false as const,
  genReqId(request: IncomingMessage): string {
    const given = request.headers[REQUEST_ID_HEADER];
    return typeof given === "string" && WELL_FORMED_ID.test(given) ? given : randomUUID();
  },
};

export function observeRequests(app: FastifyInstance, listener: string, log?: PlatformLog): void {
  app.addHook("onRequest", (request, reply, done) => {
    reply.header(REQUEST_ID_HEADER, request.id);
    done();
  });
  const logs = log !== undefined && log.isLevelEnabled("info");
  app.addHook("onResponse", (request, reply, done) => {
    const route = request.routeOptions.url ?? "unmatched";
    const method = request.method;
    const status = reply.statusCode;
    const durationMs = reply.elapsedTime;
    restRequests.inc({ listener, method, route, status: String(status) });
    restRequestDuration.observe({ listener, method, route }, durationMs / 1000);
    if (status === 429) rateLimitRefusals.inc({ listener, route });
    if (logs) {
      log.info({ listener, method, route, status, durationMs: Math.round(durationMs * 1000) / 1000, requestId: request.id, clientIp: request.ip }, "request");
    }
    done();
  });
}
