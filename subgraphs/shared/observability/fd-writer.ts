/**
 * Writes to a file descriptor that may be non-blocking without stopping the event loop while its reader is behind.
 *
 * Standard output is often a pipe, and Node makes a pipe's write end non-blocking as soon as anything touches
 * `process.stdout`; a full pipe then refuses a write with EAGAIN. pino's synchronous SonicBoom answers that by
 * sleeping 100 ms and trying again: the whole server stands still for 100 ms each time a log reader (a terminal,
 * `tee`, a container's log driver) falls behind. Here what the descriptor does not take is held, in order, and tried
 * again every `retryMs` from a timer while the server goes on; only past `maxPendingBytes` held does a write wait for
 * the reader (1 ms pauses), so that a reader that never catches up slows the server rather than filling its memory.
 * No byte is dropped while the reader is there. `flushSync()` (shutdown, exit) waits until everything held is written.
 *
 * A reader that has gone (EPIPE) ends the output: what is held and everything written after is dropped, as pino's own
 * destination does, so that `npm start | head` does not make every request's log line throw. Any other error (EBADF,
 * ENOSPC) drops what is held and is thrown by the write or flush that meets it; one met by the timer is thrown by the
 * next write or flush.
 */
import { writeSync } from "node:fs";

export interface FdWriterOptions {
  /** Bytes held while the reader is behind before a write waits for it (default 4 MiB). */
  maxPendingBytes?: number;
  /** Milliseconds between tries while bytes are held (default 5). */
  retryMs?: number;
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));
/** Blocks this thread for `ms` (only where waiting is the point: past the cap, and at shutdown). */
const pause = (ms: number) => void Atomics.wait(sleeper, 0, 0, ms);

export class FdWriter {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private timer: NodeJS.Timeout | undefined;
  private failure: Error | undefined;
  /** The reader has gone (EPIPE): nothing more is written. */
  private ended = false;
  private readonly maxPendingBytes: number;
  private readonly retryMs: number;
  private readonly retry = () => {
    this.timer = undefined;
    try {
      this.drain(false);
    } catch (error) {
      this.failure = error as Error;
    }
  };

  constructor(
    private readonly fd: number,
    options: FdWriterOptions = {},
  ) {
    this.maxPendingBytes = options.maxPendingBytes ?? 4 * 1024 * 1024;
    this.retryMs = options.retryMs ?? 5;
  }

  /** Bytes waiting for the reader. */
  get held(): number {
    return this.pendingBytes;
  }

  /** Writes what the descriptor takes now and holds the rest, after anything already held. */
  write(chunk: string): void {
    this.throwFailure();
    if (this.ended) return;
    const bytes = Buffer.from(chunk, "utf8");
    if (this.pendingBytes === 0) {
      const written = this.writeSome(bytes);
      if (written === bytes.length || this.ended) return;
      this.hold(bytes.subarray(written));
    } else {
      this.hold(bytes);
    }
    if (this.pendingBytes > this.maxPendingBytes) this.drain(true);
    else this.schedule();
  }

  /** Writes everything held, waiting for the reader as long as it takes. */
  flushSync(): void {
    this.throwFailure();
    if (!this.ended) this.drain(true);
  }

  private hold(bytes: Buffer): void {
    this.pending.push(bytes);
    this.pendingBytes += bytes.length;
  }

  private schedule(): void {
    if (this.timer !== undefined || this.pendingBytes === 0) return;
    this.timer = setTimeout(this.retry, this.retryMs);
    this.timer.unref();
  }

  /** Writes held bytes in order; without `wait`, stops at the first refusal and tries again later. */
  private drain(wait: boolean): void {
    while (this.pending.length > 0) {
      const head = this.pending[0]!;
      const written = this.writeSome(head);
      if (this.ended) break;
      this.pendingBytes -= written;
      if (written === head.length) {
        this.pending.shift();
        continue;
      }
      this.pending[0] = head.subarray(written);
      if (!wait) {
        this.schedule();
        return;
      }
      pause(1);
    }
    if (this.timer !== undefined) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
  }

  /** Bytes the descriptor took: 0 when it refused with EAGAIN, or when the reader has gone (the output then ends). */
  private writeSome(bytes: Buffer): number {
    try {
      return writeSync(this.fd, bytes);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "EAGAIN") return 0;
      this.pending = [];
      this.pendingBytes = 0;
      if (code !== "EPIPE") throw error;
      this.ended = true;
      return 0;
    }
  }

  private throwFailure(): void {
    const failure = this.failure;
    if (failure === undefined) return;
    this.failure = undefined;
    throw failure;
  }
}
