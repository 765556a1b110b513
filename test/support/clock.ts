/**
 * Clocks for tests, injected where the product takes a `Clock` (`startPlatform(..., { clock, rateLimitClock })`,
 * services, the rate limiter): time moves only when a test moves it, so no wall-clock boundary can fall inside a test.
 */
import type { Clock } from "../../subgraphs/shared/clock.js";

export interface ManualClock extends Clock {
  /** Moves the clock forward (or back, with a negative value). */
  advance(ms: number): void;
  /** Sets the clock to an absolute time (milliseconds since the epoch; NaN or any number, to test invalid clocks). */
  set(ms: number): void;
}

/** A clock that stands still at `startMs` (default: now) until the test moves it. */
export function manualClock(startMs = Date.now()): ManualClock {
  let current = startMs;
  return {
    now: () => current,
    advance: (ms) => {
      current += ms;
    },
    set: (ms) => {
      current = ms;
    },
  };
}

export interface OffsetClock extends Clock {
  /** How far this clock runs ahead of the system clock. */
  offsetMs: number;
}

/** The system clock plus an offset a test can change (for code that must also agree with real signatures' times). */
export function offsetClock(offsetMs = 0): OffsetClock {
  const clock: OffsetClock = { offsetMs, now: () => Date.now() + clock.offsetMs };
  return clock;
}

/**
 * A window of the fixed-window rate limiter, frozen: `Math.floor(now / windowMs)` cannot change during a test unless
 * the test calls `advance(windowMs)`. Starts in the middle of a window.
 */
export function rateLimitClock(windowMs = 60_000): ManualClock {
  return manualClock(Math.floor(Date.now() / windowMs) * windowMs + Math.floor(windowMs / 2));
}
