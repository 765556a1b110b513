/**
 * What one request's observability costs, in process (`npx tsx test/bench/observability-costs.ts`): the request line
 * through pino with the platform's wildcard redaction (as before), through pino without it, and as the platform now
 * writes it (requestLineWriter, by construction); the two REST metrics per request through prom-client and through the
 * series the platform keeps (series.ts); a request ID. Every line goes to a
 * sink that drops it, so only the formatting and redaction are measured; microseconds per call, medians of 5 rounds.
 * Then the output: the same lines written to /dev/null through pino's asynchronous destination (thread-pool writes of
 * 4 KiB batches) and through the platform's batched synchronous output (log-output.ts) on pino's synchronous SonicBoom
 * as before and on its own writer (fd-writer.ts) as now, as CPU time of the whole
 * process (process.cpuUsage: the thread pool included), ten lines per event-loop turn as a busy server writes them.
 */
import { openSync } from "node:fs";
import { randomUUID } from "node:crypto";
import { pino } from "pino";
import { REDACT_PATHS, createLog, requestLines, requestLineWriter } from "../../subgraphs/shared/observability/log.js";
import { BatchedOutput } from "../../subgraphs/shared/observability/log-output.js";
import { FdWriter } from "../../subgraphs/shared/observability/fd-writer.js";
import { Counter, Histogram, Registry } from "prom-client";
import { restRequestDuration, restRequests } from "../../subgraphs/shared/observability/metrics.js";

const sink = { write: (_line: string) => {} };
const base = { level: "info", base: { pid: process.pid }, timestamp: pino.stdTimeFunctions.isoTime };
const redacting = pino({ ...base, redact: { paths: REDACT_PATHS, censor: "[redacted]" } }, sink);
const plain = pino(base, sink);
const writeLine = requestLineWriter(createLog({ logLevel: "info", development: false }, sink), "http");
const lines = requestLines(createLog({ logLevel: "info", development: false }, sink), "http");
const linePrefix = lines.prefix("GET", "/v1/verify/machines/:machineId", 200);
const route = "/v1/verify/machines/:machineId";
const fields = () => ({ listener: "http", method: "GET", route, status: 200, durationMs: 1.234, requestId: randomUUID(), clientIp: "127.0.0.1" });
const countLabels = { listener: "http", method: "GET", route, status: "200" };
const durationLabels = { listener: "http", method: "GET", route };
// prom-client's own Counter and Histogram with the same names, labels and buckets (the platform's earlier metrics).
const promRegistry = new Registry();
const promCounter = new Counter({ name: "c", help: "c", labelNames: ["listener", "method", "route", "status"], registers: [promRegistry] });
const promHistogram = new Histogram({ name: "h", help: "h", labelNames: ["listener", "method", "route"], buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10], registers: [promRegistry] });
const countSeries = restRequests.series(countLabels);
const durationSeries = restRequestDuration.series(durationLabels);

const cases: Array<[string, () => void]> = [
  ["request line, pino + 54 redaction paths (before)", () => redacting.info(fields(), "request")],
  ["request line, pino without redaction", () => plain.info(fields(), "request")],
  ["request line by construction, whole", () => writeLine("GET", route, 200, 1.234, randomUUID(), "127.0.0.1")],
  ["request line, fixed part kept per route (now)", () => lines.write(linePrefix, 1.234, randomUUID(), "127.0.0.1")],
  ["two REST metrics, prom-client inc + observe (before)", () => {
    promCounter.inc(countLabels);
    promHistogram.observe(durationLabels, 0.0012);
  }],
  ["two REST metrics, series kept per label set (now)", () => {
    countSeries.value++;
    restRequestDuration.observe(durationSeries, 0.0012);
  }],
  ["request ID (randomUUID)", () => void randomUUID()],
];

const timings = new Map<string, number[]>(cases.map(([name]) => [name, []]));
for (let round = 0; round < 5; round++) {
  for (const [name, run] of cases) {
    const n = name.includes("redaction paths") ? 5_000 : 100_000;
    for (let i = 0; i < n / 10; i++) run();
    const started = performance.now();
    for (let i = 0; i < n; i++) run();
    timings.get(name)!.push(((performance.now() - started) * 1000) / n);
  }
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
console.log(`per-request observability, microseconds per call (medians of 5 rounds)`);
for (const [name, values] of timings) console.log(`  ${name.padEnd(52)} ${median(values).toFixed(2)} us`);

async function outputCost(destination: { write(line: string): unknown }, lines: number): Promise<number> {
  const write = requestLineWriter(createLog({ logLevel: "info", development: false }, destination), "http");
  const before = process.cpuUsage();
  for (let written = 0; written < lines; written += 10) {
    for (let i = 0; i < 10; i++) write("GET", route, 200, 1.234, "3b241101-e2bb-4255-8caf-4136c566a962", "127.0.0.1");
    await new Promise((resolve) => setImmediate(resolve));
  }
  const used = process.cpuUsage(before);
  return (used.user + used.system) / lines;
}
const outputs: Array<[string, () => { write(line: string): unknown }]> = [
  ["pino.destination, asynchronous, 4 KiB batches", () => pino.destination({ dest: openSync("/dev/null", "w"), sync: false, minLength: 4096 })],
  ["batched, pino's synchronous SonicBoom (before)", () => new BatchedOutput(pino.destination({ dest: openSync("/dev/null", "w"), sync: true }))],
  ["batched, FdWriter (now)", () => new BatchedOutput(new FdWriter(openSync("/dev/null", "w")))],
];
const outputTimings = new Map<string, number[]>(outputs.map(([name]) => [name, []]));
for (let round = 0; round < 5; round++) {
  for (const [name, make] of outputs) outputTimings.get(name)!.push(await outputCost(make(), 200_000));
}
console.log(`request line formatted and written to /dev/null, CPU microseconds per line, thread pool included (medians of 5 rounds)`);
for (const [name, values] of outputTimings) console.log(`  ${name.padEnd(52)} ${median(values).toFixed(2)} us`);
