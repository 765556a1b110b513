/**
 * What every listener does per request besides answering it, in two Fastify hooks:
 * - `onRequest`: returns the request ID in `x-request-id` (the client's, when it sent a well-formed one; else a new
 *   UUID: see `requestIdOptions`);
 * - `onResponse`: the request's metrics (count and latency by route pattern, 429s as rate-limit refusals) and its
 *   one log line (method, route pattern, status, duration, request ID, client IP).
 * The route label is the pattern the router matched (`/mcr/:did`), never the raw path: bounded by the route table,
 * and free of identifiers and tokens.
 *
 * Per request this costs a Map lookup for what is fixed per method, route and status (made once: the metric series,
 * series.ts, and the request line's fixed part), two additions for the metrics and one line written by construction
 * (`requestLines`: no redaction pass, every field is the platform's own). Either part can be switched off
 * (`LOG_REQUESTS=0`, `REQUEST_METRICS=0`) to measure what it costs.
 */
import { randomUUID } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { FastifyInstance } from "fastify";
import { REQUEST_ID_HEADER } from "../context.js";
import { requestLines, type PlatformLog } from "./log.js";
import { rateLimitRefusals, restRequestDuration, restRequests } from "./metrics.js";
import type { CounterSeries, HistogramSeries } from "./series.js";

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

export interface RequestObservation {
  /** Request log lines; none when absent (or when its level is above info). */
  log?: PlatformLog;
  /** Per-request metrics (default on). */
  metrics?: boolean;
}

interface RouteLabels {
  /** The metric series (absent with metrics off). */
  count?: CounterSeries;
  duration?: HistogramSeries;
  /** The request line's part fixed for this method, route and status. */
  line: string;
}

export function observeRequests(app: FastifyInstance, listener: string, options: RequestObservation = {}): void {
  app.addHook("onRequest", (request, reply, done) => {
    reply.header(REQUEST_ID_HEADER, request.id);
    done();
  });
  const lines = options.log !== undefined && options.log.isLevelEnabled("info") ? requestLines(options.log, listener) : undefined;
  const metrics = options.metrics !== false;
  if (!lines && !metrics) return;
  // What is fixed per method, route and status, made once: bounded by the route table (and the statuses it answers).
  const labelSets = new Map<string, RouteLabels>();
  const labelsOf = (method: string, route: string, status: number): RouteLabels => {
    const key = `${method} ${status} ${route}`;
    let labels = labelSets.get(key);
    if (labels === undefined) {
      labels = {
        count: metrics ? restRequests.series({ listener, method, route, status: String(status) }) : undefined,
        duration: metrics ? restRequestDuration.series({ listener, method, route }) : undefined,
        line: lines?.prefix(method, route, status) ?? "",
      };
      labelSets.set(key, labels);
    }
    return labels;
  };
  app.addHook("onResponse", (request, reply, done) => {
    const route = request.routeOptions.url ?? "unmatched";
    const status = reply.statusCode;
    const durationMs = reply.elapsedTime;
    const labels = labelsOf(request.method, route, status);
    if (labels.count && labels.duration) {
      labels.count.value++;
      restRequestDuration.observe(labels.duration, durationMs / 1000);
      if (status === 429) rateLimitRefusals.inc({ listener, route });
    }
    if (lines) lines.write(labels.line, durationMs, request.id, request.ip);
    done();
  });
}
