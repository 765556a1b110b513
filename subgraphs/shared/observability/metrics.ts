/**
 * The platform's Prometheus metrics (prom-client), one registry per process, served by the admin listener
 * (gateway/observability/admin-listener.ts). Each metric is updated where the thing happens, at the cost of a map
 * lookup and an addition: REST requests (a Fastify onResponse hook), GraphQL operations (an Apollo plugin), chain
 * reads (the reader), transactions and pool state (the database), rate-limit refusals (429 answers).
 *
 * Several platforms in one process (tests) share the registry; gauges read from sources registered while open.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import { ScrapedCounter, ScrapedHistogram } from "./series.js";

export const registry = new Registry();
collectDefaultMetrics({ register: registry });

const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** Updated per request through series kept per label set (series.ts): no label hashing on the request path. */
export const restRequests = new ScrapedCounter(
  "rest_requests_total",
  "REST requests answered, by listener, method, route pattern and status.",
  ["listener", "method", "route", "status"],
  registry,
);

export const restRequestDuration = new ScrapedHistogram(
  "rest_request_duration_seconds",
  "REST request latency from arrival to the last byte written, by listener, method and route pattern.",
  ["listener", "method", "route"],
  LATENCY_BUCKETS,
  registry,
);

export const rateLimitRefusals = new Counter({
  name: "rate_limit_refusals_total",
  help: "Requests refused by a per-IP limit (429), by listener and route pattern.",
  labelNames: ["listener", "route"] as const,
  registers: [registry],
});

/** Updated per operation through series kept per label set, as the REST metrics (gateway/observability/graphql-metrics.ts). */
export const graphqlOperations = new ScrapedCounter(
  "graphql_operations_total",
  "GraphQL operations executed by the gateway (GraphQL listener and REST shim), by operation name and outcome.",
  ["operation", "outcome", "code"],
  registry,
);

export const graphqlOperationDuration = new ScrapedHistogram(
  "graphql_operation_duration_seconds",
  "GraphQL operation latency in the gateway, by operation name.",
  ["operation"],
  LATENCY_BUCKETS,
  registry,
);

export const chainRpcDuration = new Histogram({
  name: "chain_rpc_duration_seconds",
  help: "JSON-RPC request latency to the chain node, by method and outcome.",
  labelNames: ["method", "outcome"] as const,
  buckets: LATENCY_BUCKETS,
  registers: [registry],
});

export const chainViewCache = new Counter({
  name: "chain_view_cache_requests_total",
  help: "Contract view reads by per-block cache result (hit or miss).",
  labelNames: ["result"] as const,
  registers: [registry],
});

new Gauge({
  name: "chain_view_cache_hit_ratio",
  help: "Share of contract view reads answered from the per-block cache since the process started.",
  registers: [registry],
  async collect() {
    const values = (await chainViewCache.get()).values;
    const count = (result: string) => values.find((value) => value.labels.result === result)?.value ?? 0;
    const total = count("hit") + count("miss");
    this.set(total === 0 ? 0 : count("hit") / total);
  },
});

export const dbTransactionDuration = new Histogram({
  name: "db_transaction_duration_seconds",
  help: "Interactive and batch transaction durations, by database kind and outcome.",
  labelNames: ["database", "outcome"] as const,
  buckets: LATENCY_BUCKETS,
  registers: [registry],
});

/** Connection counts of an open pool (pg.Pool's counters). */
export interface PoolSource {
  readonly totalCount: number;
  readonly idleCount: number;
  readonly waitingCount: number;
}
const pools = new Set<PoolSource>();

new Gauge({
  name: "db_pool_connections",
  help: "PostgreSQL pool connections by state (total, idle, waiting clients); PGlite has no pool.",
  labelNames: ["state"] as const,
  registers: [registry],
  collect() {
    let total = 0;
    let idle = 0;
    let waiting = 0;
    for (const pool of pools) {
      total += pool.totalCount;
      idle += pool.idleCount;
      waiting += pool.waitingCount;
    }
    this.set({ state: "total" }, total);
    this.set({ state: "idle" }, idle);
    this.set({ state: "waiting" }, waiting);
  },
});

/** Counts a pool in `db_pool_connections` until the returned function is called (on close). */
export function observePool(pool: PoolSource): () => void {
  pools.add(pool);
  return () => pools.delete(pool);
}

/** Counts of open things, read at scrape time from the database (e.g. open verify challenges). */
const openCounters = new Set<() => Promise<Record<string, number>>>();

new Gauge({
  name: "open_challenges",
  help: "Challenges issued and not yet consumed or expired, by kind (verify chip, markets machine identity).",
  labelNames: ["kind"] as const,
  registers: [registry],
  async collect() {
    this.reset();
    for (const count of openCounters) {
      try {
        for (const [kind, value] of Object.entries(await count())) this.inc({ kind }, value);
      } catch {
        // A database that cannot answer leaves the gauge without this source; the scrape still succeeds.
      }
    }
  },
});

export function observeOpenChallenges(count: () => Promise<Record<string, number>>): () => void {
  openCounters.add(count);
  return () => openCounters.delete(count);
}

/** Seconds since `start` (a `process.hrtime.bigint()` reading). */
export function secondsSince(start: bigint): number {
  return Number(process.hrtime.bigint() - start) / 1e9;
}
