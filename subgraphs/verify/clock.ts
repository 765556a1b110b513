/**
 * The server clock, checked before it decides anything about expiry.
 *
 * "Invalid" (503 VERIFY_CLOCK_INVALID) means: not a finite number, earlier than the configured floor (default
 * 2026-01-01T00:00:00Z, before which this service never ran, so a clock there was reset), or later than
 * 2100-01-01T00:00:00Z (beyond any plausible skew; Unix seconds there no longer fit the 32-bit fields clients use).
 * A wrong clock would issue challenges that are already expired or live far too long, so the service refuses to
 * issue or consume challenges until the clock is sane again.
 */
import type { Clock } from "../shared/clock.js";
import { VerifyErrors } from "./errors.js";

export { systemClock, type Clock } from "../shared/clock.js";

const CLOCK_CEILING_UNIX = 4_102_444_800; // 2100-01-01T00:00:00Z

export function trustedNowMs(clock: Clock, floorUnix: number): number {
  const now = clock.now();
  if (!Number.isFinite(now) || now < floorUnix * 1000 || now >= CLOCK_CEILING_UNIX * 1000) {
    throw VerifyErrors.clockInvalid();
  }
  return now;
}
