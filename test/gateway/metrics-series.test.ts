/**
 * The per-request REST metrics kept as series (subgraphs/shared/observability/series.ts) scrape to the same text as
 * prom-client's own Counter and Histogram given the same observations: names, labels in the same order, cumulative
 * `le` buckets with a value on a bound counted in that bound, `+Inf`, `_sum`, `_count`; and a registry reset clears them.
 */
import { describe, expect, it } from "vitest";
import { Counter, Histogram, Registry } from "prom-client";
import { ScrapedCounter, ScrapedHistogram } from "../../subgraphs/shared/observability/series.js";

const BOUNDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const OBSERVED = [0, 0.0004, 0.001, 0.0011, 0.0025, 0.007, 0.05, 0.3, 1, 9.99, 10, 11, 250];
const SETS = [
  { listener: "http", method: "GET", route: "/v1/verify/machines/:machineId" },
  { listener: "markets", method: "POST", route: "/api/v1/orders" },
];

function both() {
  const theirs = new Registry();
  const ours = new Registry();
  const counter = new Counter({ name: "t_requests_total", help: "requests", labelNames: ["listener", "method", "route", "status"], registers: [theirs] });
  const histogram = new Histogram({ name: "t_duration_seconds", help: "latency", labelNames: ["listener", "method", "route"], buckets: BOUNDS, registers: [theirs] });
  const scrapedCounter = new ScrapedCounter("t_requests_total", "requests", ["listener", "method", "route", "status"], ours);
  const scrapedHistogram = new ScrapedHistogram("t_duration_seconds", "latency", ["listener", "method", "route"], BOUNDS, ours);
  SETS.forEach((labels, index) => {
    const counted = { ...labels, status: String(200 + index) };
    const series = scrapedCounter.series(counted);
    const durations = scrapedHistogram.series(labels);
    for (const value of OBSERVED.slice(index)) {
      counter.inc(counted);
      series.value++;
      histogram.observe(labels, value);
      scrapedHistogram.observe(durations, value);
    }
  });
  return { theirs, ours };
}

describe("metric series", () => {
  it("scrape to prom-client's text for the same observations", async () => {
    const { theirs, ours } = both();
    const expected = await theirs.metrics();
    expect(expected).toContain('t_duration_seconds_bucket{le="0.001",listener="http"');
    expect(await ours.metrics()).toBe(expected);
  });

  it("keep one series per label set, whatever object the labels came in", () => {
    const registry = new Registry();
    const counter = new ScrapedCounter("u_total", "u", ["a", "b"], registry);
    expect(counter.series({ a: "1", b: "2" })).toBe(counter.series({ b: "2", a: "1" }));
    expect(counter.series({ a: "1", b: "2" })).not.toBe(counter.series({ a: "1", b: "3" }));
  });

  it("are cleared by a registry reset, and count again through the series their callers kept", async () => {
    const registry = new Registry();
    const counter = new ScrapedCounter("v_total", "v", ["a"], registry);
    const kept = counter.series({ a: "1" });
    kept.value += 3;
    registry.resetMetrics();
    expect(await registry.metrics()).toBe("# HELP v_total v\n# TYPE v_total counter\n");
    kept.value++;
    expect(await registry.metrics()).toBe('# HELP v_total v\n# TYPE v_total counter\nv_total{a="1"} 1\n');
    const { theirs, ours } = both();
    theirs.resetMetrics();
    ours.resetMetrics();
    expect(await ours.metrics()).toBe(await theirs.metrics());
  });
});
