/**
 * The log's writer on a real pipe whose reader falls behind (fd-writer.ts). A child process logs through it to its
 * standard output, made non-blocking as the platform's is (Node does that when `process.stdout` is touched), while
 * this process does not read; Atomics.wait is counted in the child, since that is how a synchronous writer sleeps.
 * - Below the cap: the child never waits, holds what the full pipe refused, and its timers run meanwhile; once the
 *   reader reads, the retry timer writes what was held, and every line arrives, whole and in order.
 * - Past the cap: writes wait for the reader in short pauses, the bytes held never pass the cap, nothing is lost.
 * - A reader that has gone: the write meets EPIPE and the output ends quietly (nothing held, nothing thrown), as
 *   pino's own destination does.
 */
import { spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const module = (file: string) => JSON.stringify(path.join(root, "subgraphs/shared/observability", file));

interface Report {
  waits: number[];
  maxHeld: number;
  heldAtReport: number;
  timerRan: boolean;
  heldLater?: number;
  error?: string;
}

/**
 * Runs the child; this process starts reading its output `readAfterMs` after the child says it starts writing (a
 * "writing starts" line on its standard error), or never (the reader closed) with `closeReader`.
 */
async function runChild(body: string, readAfterMs: number, closeReader = false) {
  const script = [
    `import { BatchedOutput } from ${module("log-output.ts")};`,
    `import { FdWriter } from ${module("fd-writer.ts")};`,
    `import { createLog, requestLineWriter } from ${module("log.ts")};`,
    "void process.stdout;",
    "const waits = [];",
    "const wait = Atomics.wait;",
    "Atomics.wait = (...args) => { waits.push(args[3]); return wait.apply(Atomics, args); };",
    body,
  ].join("\n");
  const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { cwd: root, stdio: ["ignore", "pipe", "pipe"] });
  const chunks: Buffer[] = [];
  let stderr = "";
  child.stdout.pause();
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const read = () => child.stdout.on("data", (chunk: Buffer) => chunks.push(chunk)).resume();
  if (closeReader) child.stdout.destroy();
  let started = false;
  child.stderr.on("data", () => {
    if (started || closeReader || !stderr.includes("writing starts\n")) return;
    started = true;
    setTimeout(read, readAfterMs);
  });
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  const reports = stderr.split("\n").filter((line) => line.startsWith("{")).map((line) => JSON.parse(line) as Partial<Report>);
  const report = reports.length === 0 ? null : (Object.assign({}, ...reports) as Report);
  return { code, stderr, report, lines: Buffer.concat(chunks).toString("utf8").trimEnd().split("\n") };
}

/** Writes `count` request lines, recording the most bytes held, then reports from a timer and logs "last". */
const logLines = (count: number, options: string) => `
const writer = new FdWriter(1, ${options});
const log = createLog({ logLevel: "info", development: false }, new BatchedOutput(writer));
const write = requestLineWriter(log, "http");
let maxHeld = 0;
process.stderr.write("writing starts\\n");
for (let i = 0; i < ${count}; i++) {
  write("GET", "/v1/verify/machines/:machineId", 200, 1.5, "id-" + i, "127.0.0.1");
  maxHeld = Math.max(maxHeld, writer.held);
}
const heldAtReport = writer.held;
setTimeout(() => process.stderr.write(JSON.stringify({ waits, maxHeld, heldAtReport, timerRan: true }) + "\\n"), 0);
// Long after the reader started: what was held has been written by the retry timer, not only at exit.
setTimeout(() => {
  process.stderr.write(JSON.stringify({ heldLater: writer.held }) + "\\n");
  log.info("last");
}, 2_000);
`;

function expectEveryLine(lines: string[], count: number): void {
  const entries = lines.map((line) => JSON.parse(line) as { requestId?: string; msg: string });
  expect(entries).toHaveLength(count + 1);
  entries.slice(0, count).forEach((entry, i) => expect(entry.requestId).toBe(`id-${i}`));
  expect(entries[count]).toMatchObject({ msg: "last" });
}

describe("log writer on a pipe whose reader is behind", () => {
  it("holds what the full pipe refuses without stopping the event loop, then delivers every line in order", async () => {
    const count = 8_000; // about 2 MB: many times what the pipe holds, below the 4 MiB cap
    const { code, stderr, report, lines } = await runChild(logLines(count, "{}"), 500);
    expect(code, stderr).toBe(0);
    expect(report, stderr).not.toBeNull();
    // The pipe was full: bytes were held, not written, and the child's timer ran while they waited.
    expect(report!.heldAtReport).toBeGreaterThan(1_000_000);
    expect(report!.timerRan).toBe(true);
    expect(report!.waits).toEqual([]);
    expect(report!.heldLater).toBe(0);
    expectEveryLine(lines, count);
  });

  it("past the cap, waits for the reader in short pauses and loses nothing", async () => {
    const count = 8_000;
    const cap = 256 * 1024;
    const { code, stderr, report, lines } = await runChild(logLines(count, `{ maxPendingBytes: ${cap} }`), 300);
    expect(code, stderr).toBe(0);
    expect(report!.waits.length).toBeGreaterThan(0);
    expect(report!.waits.every((ms) => ms === 1)).toBe(true);
    // At most the cap and one batch of 16 KiB beyond it is ever held.
    expect(report!.maxHeld).toBeLessThanOrEqual(cap + 17 * 1024);
    expectEveryLine(lines, count);
  });

  it("ends the output once the reader has gone (EPIPE): what it held and every later line dropped, nothing thrown", async () => {
    const body = `
const writer = new FdWriter(1);
const log = createLog({ logLevel: "info", development: false }, new BatchedOutput(writer));
const write = requestLineWriter(log, "http");
let error = "";
await new Promise((resolve) => setTimeout(resolve, 200));
try {
  for (let i = 0; i < 5000; i++) write("GET", "/v1/verify/machines/:machineId", 200, 1.5, "id-" + i, "127.0.0.1");
  log.flush();
  writer.write("after\\n");
  writer.flushSync();
} catch (e) {
  error = String(e.code ?? e);
}
process.stderr.write(JSON.stringify({ waits, maxHeld: 0, heldAtReport: writer.held, timerRan: false, error }) + "\\n");
`;
    const { code, stderr, report } = await runChild(body, 0, true);
    expect(code, stderr).toBe(0);
    expect(report!.error).toBe("");
    expect(report!.heldAtReport).toBe(0);
    expect(report!.waits).toEqual([]);
  });
});
