/**
 * The admin listener's Prometheus metrics after real requests: per-route counts and latency, GraphQL operations by
 * name and outcome, chain reads and cache results, transactions, open challenges, rate-limit refusals and process
 * metrics. The admin listener is on loopback and its own port; the public listeners do not serve /metrics.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, postHeaders } from "../support/http.js";
import { graphql, startIsolatedPlatform, type IsolatedPlatform } from "../support/platform.js";

let p: IsolatedPlatform;
beforeAll(async () => {
  p = await startIsolatedPlatform({ RATE_LIMIT_VERIFY_READ_PER_IP: "3" });
});
afterAll(() => p?.close());

/** The value of one sample line (`name{labels} value`), or undefined when the scrape has no such line. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split("\n")) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const labelText = line.slice(name.length).split(" ")[0]!;
    if (Object.entries(labels).every(([key, value]) => labelText.includes(`${key}="${value}"`))) return Number(line.split(" ").at(-1));
  }
  return undefined;
}

const scrape = async () => {
  const response = await call(p.platform.urls.admin!);
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
  return response.body;
};

describe("admin listener", () => {
  it("listens on loopback, on its own port, and the public listeners have no /metrics", async () => {
    const admin = new URL(p.platform.urls.admin!);
    expect(admin.hostname).toBe("127.0.0.1");
    expect(admin.pathname).toBe("/metrics");
    for (const url of [p.http, p.markets, p.mcr2, p.graphql]) {
      expect(new URL(url).port).not.toBe(admin.port);
      expect((await call(new URL("/metrics", url).toString())).status).toBe(404);
    }
  });

  it("counts requests by route pattern, operations by name and outcome, chain reads, transactions and challenges", async () => {
    const machine = p.machine("active");
    const before = await scrape();
    const route = { listener: "http", method: "GET", route: "/v1/verify/machines/:machineId" };
    const countBefore = sample(before, "rest_requests_total", { ...route, status: "200" }) ?? 0;

    expect((await call(`${p.http}/v1/verify/machines/${machine.machineId}`, { headers: { accept: "application/json" } })).status).toBe(200);
    expect((await call(`${p.http}/v1/verify/machines/99999999`, { headers: { accept: "application/json" } })).status).toBe(404);
    const challenge = await call(`${p.http}/v1/verify/chip/challenge`, { method: "POST", headers: postHeaders(), body: JSON.stringify({ machineId: machine.machineId }) });
    expect(challenge.status).toBe(201);
    const gql = await graphql(p.graphql, "query MetricsProbe($id: String!) { machineVerification(machineId: $id) { machineId } }", { id: machine.machineId }, { "apollo-require-preflight": "1" });
    expect(gql.status).toBe(200);
    // A job that writes in a transaction (run on demand in tests).
    await p.platform.services.ratings!.ownershipIndex.sync();

    const after = await scrape();
    expect(sample(after, "rest_requests_total", { ...route, status: "200" })).toBe(countBefore + 1);
    expect(sample(after, "rest_requests_total", { ...route, status: "404" })).toBeGreaterThanOrEqual(1);
    expect(sample(after, "rest_request_duration_seconds_count", route)).toBeGreaterThanOrEqual(countBefore + 2);
    expect(sample(after, "rest_request_duration_seconds_bucket", { ...route, le: "+Inf" })).toBeGreaterThanOrEqual(2);
    expect(sample(after, "graphql_operations_total", { operation: "VerifyMachine", outcome: "success" })).toBeGreaterThanOrEqual(1);
    expect(sample(after, "graphql_operations_total", { operation: "VerifyMachine", outcome: "error", code: "MACHINE_NOT_FOUND" })).toBeGreaterThanOrEqual(1);
    expect(sample(after, "graphql_operations_total", { operation: "MetricsProbe", outcome: "success" })).toBe(1);
    expect(sample(after, "graphql_operation_duration_seconds_count", { operation: "CreateChipChallenge" })).toBeGreaterThanOrEqual(1);
    expect(sample(after, "rest_requests_total", { listener: "graphql", method: "POST", route: "/graphql", status: "200" })).toBeGreaterThanOrEqual(1);
    expect(sample(after, "chain_rpc_duration_seconds_count", { method: "eth_call", outcome: "ok" })).toBeGreaterThan(0);
    const hits = sample(after, "chain_view_cache_requests_total", { result: "hit" }) ?? 0;
    const misses = sample(after, "chain_view_cache_requests_total", { result: "miss" })!;
    expect(misses).toBeGreaterThan(0);
    expect(sample(after, "chain_view_cache_hit_ratio")).toBeCloseTo(hits / (hits + misses), 6);
    expect(sample(after, "db_transaction_duration_seconds_count", { outcome: "commit" })).toBeGreaterThan(0);
    expect(sample(after, "open_challenges", { kind: "verify_chip" })).toBeGreaterThanOrEqual(1);
    expect(sample(after, "db_pool_connections", { state: "total" })).toBeGreaterThanOrEqual(0);
    expect(sample(after, "process_cpu_user_seconds_total")).toBeGreaterThan(0);
    expect(sample(after, "nodejs_eventloop_lag_seconds")).toBeGreaterThanOrEqual(0);
  });

  it("counts rate-limit refusals by route", async () => {
    const machine = p.machine("active");
    const route = { listener: "http", route: "/v1/verify/machines/:machineId" };
    const before = sample(await scrape(), "rate_limit_refusals_total", route) ?? 0;
    const statuses: number[] = [];
    // The verify read limit is 3 per window (frozen): the fourth read from this address is refused.
    for (let i = 0; i < 4; i++) {
      statuses.push((await call(`${p.http}/v1/verify/machines/${machine.machineId}`, { headers: { accept: "application/json" } })).status);
    }
    expect(statuses).toContain(429);
    const refused = statuses.filter((status) => status === 429).length;
    expect(sample(await scrape(), "rate_limit_refusals_total", route)).toBe(before + refused);
  });
});
