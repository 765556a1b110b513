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
 * The underlying writer is pino's synchronous SonicBoom, which retries a full non-blocking pipe (EAGAIN) until the
 * reader takes the bytes, so no line is dropped.
 */
import { pino, type DestinationStream } from "pino";

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
    this.flushSync();
  };

  constructor(
    private readonly out: { write(chunk: string): unknown } = pino.destination({ dest: 1, sync: true }),
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
    if (this.size >= this.maxBytes) this.flushSync();
    else if (this.timer === undefined) {
      this.timer = setTimeout(this.flushLater, this.maxDelayMs);
      this.timer.unref();
    }
  }

  /** Writes what is waiting, synchronously. */
  flushSync(): void {
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
