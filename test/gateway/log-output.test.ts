/**
 * The log's batched standard output (log-output.ts): lines wait in memory until 16 KiB are collected, the delay
 * after the first waiting line has passed, the logger is flushed, or the process exits; every line arrives, whole
 * and in order. The last test runs a real process writing to a real pipe and reads what it wrote after it exited.
 */
import { spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it, vi } from "vitest";
import { BatchedOutput } from "../../subgraphs/shared/observability/log-output.js";
import { createLog } from "../../subgraphs/shared/observability/log.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

function recorder() {
  const chunks: string[] = [];
  return { chunks, out: { write: (chunk: string) => void chunks.push(chunk) } };
}

afterEach(() => {
  vi.useRealTimers();
});

describe("batched log output", () => {
  it("holds lines until the batch is full, then writes them in one chunk, in order", () => {
    const { chunks, out } = recorder();
    const output = new BatchedOutput(out, { maxBytes: 100, maxDelayMs: 60_000 });
    const lines = Array.from({ length: 12 }, (_, i) => `{"n":${String(i).padStart(3, "0")}}\n`);
    for (const line of lines.slice(0, 9)) output.write(line);
    expect(chunks).toEqual([]);
    for (const line of lines.slice(9)) output.write(line);
    // 10 lines of 10 bytes fill the batch; the 11th and 12th wait for the next one.
    expect(chunks).toEqual([lines.slice(0, 10).join("")]);
    output.end();
    expect(chunks).toEqual([lines.slice(0, 10).join(""), lines.slice(10).join("")]);
  });

  it("writes a waiting line once the delay has passed, and nothing when nothing waits", () => {
    vi.useFakeTimers();
    const { chunks, out } = recorder();
    const output = new BatchedOutput(out, { maxBytes: 16 * 1024, maxDelayMs: 100 });
    output.write("one\n");
    output.write("two\n");
    vi.advanceTimersByTime(99);
    expect(chunks).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(chunks).toEqual(["one\ntwo\n"]);
    vi.advanceTimersByTime(1_000);
    expect(chunks).toEqual(["one\ntwo\n"]);
    output.end();
    expect(chunks).toEqual(["one\ntwo\n"]);
  });

  it("the logger's flush (the platform's shutdown) writes what waits", async () => {
    const { chunks, out } = recorder();
    const output = new BatchedOutput(out, { maxDelayMs: 60_000 });
    const log = createLog({ logLevel: "info", development: false }, output);
    log.info({ listener: "test" }, "hello");
    expect(chunks).toEqual([]);
    await new Promise<void>((resolve, reject) => log.flush((error) => (error ? reject(error) : resolve())));
    expect(chunks).toHaveLength(1);
    expect(JSON.parse(chunks[0]!)).toMatchObject({ level: 30, listener: "test", msg: "hello" });
    output.end();
  });

  it("a process writing request lines to a pipe and exiting delivers every line, whole and in order", async () => {
    const count = 20_000;
    // The platform's default logger (createLog without a destination) and its request line writer.
    const script = [
      `import { createLog, requestLineWriter } from ${JSON.stringify(path.join(root, "subgraphs/shared/observability/log.ts"))};`,
      `const log = createLog({ logLevel: "info", development: false });`,
      `const write = requestLineWriter(log, "http");`,
      `for (let i = 0; i < ${count}; i++) write("GET", "/v1/verify/machines/:machineId", 200, 1.5, "id-" + i, "127.0.0.1");`,
      `log.info("last");`,
    ].join("\n");
    const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { cwd: root, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    expect(code, stderr).toBe(0);
    const entries = stdout.trimEnd().split("\n").map((line) => JSON.parse(line));
    expect(entries).toHaveLength(count + 1);
    entries.slice(0, count).forEach((entry, i) => {
      expect(entry.requestId).toBe(`id-${i}`);
    });
    expect(entries[count]).toMatchObject({ msg: "last" });
  });
});
