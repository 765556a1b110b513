/**
 * The per-request hooks on a bare Fastify listener: the request line is what pino would write for the same fields
 * (it is written by construction, without pino's redaction pass), `LOG_REQUESTS=0` / `REQUEST_METRICS=0` switch the
 * line and the metrics off, and LOG_LEVEL is validated.
 */
import Fastify from "fastify";
import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../subgraphs/shared/config.js";
import { observeRequests, requestIdOptions } from "../../subgraphs/shared/observability/http.js";
import { createLog } from "../../subgraphs/shared/observability/log.js";
import { restRequests } from "../../subgraphs/shared/observability/metrics.js";

const apps: Array<ReturnType<typeof Fastify>> = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
});

async function serve(listener: string, options: Parameters<typeof observeRequests>[2]) {
  const app = Fastify({ logger: false, ...requestIdOptions });
  apps.push(app);
  observeRequests(app, listener, options);
  app.get("/things/:id", async () => ({ ok: true }));
  await app.ready();
  return app;
}

async function count(listener: string): Promise<number> {
  const values = (await restRequests.get()).values.filter((value) => value.labels.listener === listener);
  return values.reduce((sum, value) => sum + value.value, 0);
}

describe("per-request observation", () => {
  it("writes pino's line for the seven fields, with the route pattern and a quoted request ID", async () => {
    const lines: string[] = [];
    const log = createLog({ logLevel: "info", development: false }, { write: (line: string) => void lines.push(line) });
    const app = await serve("obs-line", { log });
    const answer = await app.inject({ method: "GET", url: "/things/secret-id?token=abc", headers: { "x-request-id": "trace-1" } });
    expect(answer.statusCode).toBe(200);
    expect(answer.headers["x-request-id"]).toBe("trace-1");
    expect(lines).toHaveLength(1);
    expect(lines[0]!.endsWith("\n")).toBe(true);
    const entry = JSON.parse(lines[0]!);
    // The same fields through pino itself give the same keys in the same order.
    const reference: string[] = [];
    pino({ base: { pid: process.pid }, timestamp: pino.stdTimeFunctions.isoTime }, { write: (line: string) => void reference.push(line) })
      .info({ listener: "obs-line", method: "GET", route: "/things/:id", status: 200, durationMs: entry.durationMs, requestId: "trace-1", clientIp: entry.clientIp }, "request");
    const expected = JSON.parse(reference[0]!);
    expect(Object.keys(entry)).toEqual(Object.keys(expected));
    expect({ ...entry, time: expected.time }).toEqual(expected);
    expect(Number.isNaN(Date.parse(entry.time))).toBe(false);
    expect(lines[0]).not.toContain("secret-id");
    expect(lines[0]).not.toContain("token=abc");
  });

  it("counts each request by listener, method, route pattern and status", async () => {
    const app = await serve("obs-metrics", {});
    const before = await count("obs-metrics");
    await app.inject({ method: "GET", url: "/things/1" });
    await app.inject({ method: "GET", url: "/things/2" });
    await app.inject({ method: "GET", url: "/nothing" });
    expect(await count("obs-metrics")).toBe(before + 3);
    const values = (await restRequests.get()).values.filter((value) => value.labels.listener === "obs-metrics");
    expect(values.map((value) => [value.labels.route, value.labels.status, value.value]).sort()).toEqual([["/things/:id", "200", 2], ["unmatched", "404", 1]]);
  });

  it("off switches: no line without a log, no count with metrics off; the request ID is still returned", async () => {
    const lines: string[] = [];
    const log = createLog({ logLevel: "info", development: false }, { write: (line: string) => void lines.push(line) });
    const quiet = await serve("obs-off", { log: undefined, metrics: false });
    const answer = await quiet.inject({ method: "GET", url: "/things/1" });
    expect(answer.statusCode).toBe(200);
    expect(answer.headers["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/);
    expect(await count("obs-off")).toBe(0);
    const errorLevel = createLog({ logLevel: "error", development: false }, { write: (line: string) => void lines.push(line) });
    const aboveInfo = await serve("obs-error-level", { log: errorLevel });
    await aboveInfo.inject({ method: "GET", url: "/things/1" });
    expect(lines).toEqual([]);
    expect(log.isLevelEnabled("info")).toBe(true);
  });

  it("reads the switches and LOG_LEVEL from the environment", () => {
    const base = { DATA_DIR: "/tmp/unused" };
    expect(loadConfig(base)).toMatchObject({ logRequests: true, requestMetrics: true, logLevel: "info" });
    expect(loadConfig({ ...base, LOG_REQUESTS: "0", REQUEST_METRICS: "false" })).toMatchObject({ logRequests: false, requestMetrics: false });
    expect(loadConfig({ ...base, LOG_LEVEL: "warn" }).logLevel).toBe("error");
    expect(() => loadConfig({ ...base, LOG_LEVEL: "verbose" })).toThrow(/LOG_LEVEL/);
  });
});
