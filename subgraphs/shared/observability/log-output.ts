/**
 * The log's standard output in batches. Lines are collected in memory and written with one synchronous write once
 * `maxBytes` are waiting, `maxDelayMs` after the first waiting line (an unreferenced timer: it never keeps the process
 * alive), on `flush()` (the platform's shutdown) and on process exit.
 *
 * Why not pino's asynchronous destination: it hands every batch to libuv's thread pool (a thread wake-up, a
 * completion callback and two context switches per write) and measures its growing buffer's byte length on every
 * line. On a loaded two-core machine that cost a few microseconds of CPU per line, more than formatting the line.
 * One synchronous write per 16 KiB costs about a third of a microsecond per line; pino's own default destination
 * writes synchronously too, one write per line.
 *
 * The writes go to an FdWriter (fd-writer.ts): when the reader of a pipe falls behind, what it does not take is held
 * and written from a timer instead of stopping the event loop, and `flush()`, `end()` and exit wait until it is all
 * written, so no line is dropped.
 */
import type { DestinationStream } from "pino";
import { FdWriter } from "./fd-writer.js";

export interface BatchedOutputOptions {
  /** Bytes collected before a write (default 16 KiB). */
  maxBytes?: number;
  /** Longest a line waits for its batch (default 100 ms). */
  maxDelayMs?: number;
}

/** Every open output, flushed by the one exit handler below. */
const open = new Set<BatchedOutput>();
let exitHookInstalled = false;

export class BatchedOutput implements DestinationStream {
  private parts: string[] = [];
  private size = 0;
  private timer: NodeJS.Timeout | undefined;
  private readonly maxBytes: number;
  private readonly maxDelayMs: number;
  private readonly flushLater = () => {
    this.timer = undefined;
    this.writeBatch();
  };

  constructor(
    private readonly out: { write(chunk: string): unknown; flushSync?(): void } = new FdWriter(1),
    options: BatchedOutputOptions = {},
  ) {
    this.maxBytes = options.maxBytes ?? 16 * 1024;
    this.maxDelayMs = options.maxDelayMs ?? 100;
    open.add(this);
    if (!exitHookInstalled) {
      exitHookInstalled = true;
      process.once("exit", () => {
        for (const output of open) output.flushSync();
      });
    }
  }

  write(line: string): void {
    this.parts.push(line);
    this.size += line.length;
    if (this.size >= this.maxBytes) this.writeBatch();
    else if (this.timer === undefined) {
      this.timer = setTimeout(this.flushLater, this.maxDelayMs);
      this.timer.unref();
    }
  }

  /** Hands what is waiting to the output, which writes now what its reader takes. */
  private writeBatch(): void {
    if (this.timer !== undefined) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    if (this.size === 0) return;
    const chunk = this.parts.length === 1 ? this.parts[0]! : this.parts.join("");
    this.parts = [];
    this.size = 0;
    this.out.write(chunk);
  }

  /** Writes everything waiting, here and in the output, before it returns. */
  flushSync(): void {
    this.writeBatch();
    this.out.flushSync?.();
  }

  /** pino's `logger.flush(callback)`. */
  flush(callback?: (error?: Error) => void): void {
    try {
      this.flushSync();
    } catch (error) {
      callback?.(error as Error);
      return;
    }
    callback?.();
  }

  /** Writes what is waiting and stops counting this output among those flushed on exit. */
  end(): void {
    this.flushSync();
    open.delete(this);
  }
}
