/**
 * One Fastify `onResponse` hook per listener: the request's metrics (count and latency by route pattern, 429s as
 * rate-limit refusals) and, when a request log is given, its one log line. The route label is the pattern the
 * router matched (`/mcr/:did`), never the raw path, so its values are bounded by the route table.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { rateLimitRefusals, restRequestDuration, restRequests } from "./metrics.js";

/** Writes the request's log line (request-log.ts); called after the response is sent. */
export type RequestLogLine = (request: FastifyRequest, reply: FastifyReply, route: string, durationMs: number) => void;

export function observeRequests(app: FastifyInstance, listener: string, logLine?: RequestLogLine): void {
  app.addHook("onResponse", (request, reply, done) => {
    const route = request.routeOptions.url ?? "unmatched";
    const method = request.method;
    const status = reply.statusCode;
    const durationMs = reply.elapsedTime;
    restRequests.inc({ listener, method, route, status: String(status) });
    restRequestDuration.observe({ listener, method, route }, durationMs / 1000);
    if (status === 429) rateLimitRefusals.inc({ listener, route });
    logLine?.(request, reply, route, durationMs);
    done();
  });
}
