/**
 * A cap on concurrent work: at most `max` tasks run at once; the others wait in arrival order. A waiting task whose
 * caller's deadline passes leaves the queue unrun. A finished task hands its slot straight to the next waiting one,
 * so the cap holds exactly.
 */
export class InFlightLimit {
  private active = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(readonly max: number) {
    if (!Number.isInteger(max) || max < 1) throw new RangeError("the in-flight limit must be a positive integer");
  }

  /** Tasks running now (for tests and diagnostics). */
  get running(): number {
    return this.active;
  }

  /** Runs `task` in a free slot; rejects with the signal's reason if `signal` aborts while waiting for one. */
  async run<T>(task: () => Promise<T>, signal: AbortSignal): Promise<T> {
    if (this.active < this.max) this.active++;
    else await this.slot(signal);
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.active--;
    }
  }

  /**
   * Runs `task` in a slot under a deadline of `timeoutMs` that covers the wait for the slot too: past it the caller is
   * rejected with `timedOut()` and a task still waiting leaves the queue. A task already running keeps its slot until
   * it ends, so the cap bounds the work really in progress (sockets, for the chain reader).
   */
  async runWithin<T>(task: () => Promise<T>, timeoutMs: number, timedOut: () => Error): Promise<T> {
    const controller = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const error = timedOut();
        controller.abort(error);
        reject(error);
      }, timeoutMs);
    });
    const ran = this.run(task, controller.signal);
    ran.catch(() => {}); // after the deadline nobody is told
    try {
      return await Promise.race([ran, deadline]);
    } finally {
      clearTimeout(timer);
    }
  }

  private slot(signal: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      if (signal.aborted) return reject(signal.reason);
      const take = () => {
        signal.removeEventListener("abort", abandon);
        resolve();
      };
      const abandon = () => {
        this.waiting.splice(this.waiting.indexOf(take), 1);
        reject(signal.reason);
      };
      this.waiting.push(take);
      signal.addEventListener("abort", abandon, { once: true });
    });
  }
}
