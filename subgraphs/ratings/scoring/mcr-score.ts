/**
 * The MCR scorecard of one machine, a pure function of its on-chain inputs and the time (docs/mcr-scoring.md is the
 * specification of every number here; test/ratings/mcr-score.test.ts covers it table by table).
 *
 *   unbonded                          -> NR, 0
 *   bonded, history too short         -> Provisioned, 0   (fewer than 10 events, or first-to-last span under 30 days)
 *   bonded, graduated                 -> revenue (0-35) + cadence (0-35) + trust (0-30), rounded, banded;
 *                                        under 30 -> NR, 0
 */
import { convertToUsdCents, type AmountStatus, type RateSource } from "./fx.js";

export const EVENT_REVENUE = 0;
export const EVENT_ACTIVITY = 1;

export interface ScoredEvent {
  eventType: number;
  value: bigint;
  currency: string;
  /** Unix seconds when it happened. */
  timestamp: number;
  trustLevel: number;
  /** Unix seconds of the block that recorded it. */
  recordedAt: number;
}

export interface ScoringInputs {
  /** The full history, in submission order. */
  events: readonly ScoredEvent[];
  bonded: boolean;
  /** AdminFlags trust override in percent (0-100), or null. */
  trustOverride: number | null;
  /** AdminFlags flag timestamp, or null when not flagged. */
  flaggedAt: number | null;
  nowSeconds: number;
  rates: RateSource;
}

export type McrRating = "AAA" | "AA" | "A" | "BBB" | "BB" | "B" | "NR" | "Provisioned";
export type RevenueTrend = "up" | "stable" | "down" | "insufficient";

export interface McrScore {
  mcrScore: number;
  mcr: McrRating;
  mcrDegraded: boolean;
  bonded: boolean;
  negativeFlag: boolean;
  eventCount: number;
  revenueEventCount: number;
  activityEventCount: number;
  revenueTrend: RevenueTrend;
  /** USD cents over the full history (revenue events whose amount converted). */
  totalRevenue: bigint;
  averageRevenuePerEvent: number;
  /** Unix seconds of the latest recorded event; null without events. */
  lastUpdated: number | null;
}

const DAY = 86_400;
export const SCORE_WINDOW_SECONDS = 180 * DAY;
export const CADENCE_WINDOW_SECONDS = 90 * DAY;
export const TREND_WINDOW_SECONDS = 30 * DAY;
export const GRADUATION_MIN_EVENTS = 10;
export const GRADUATION_MIN_SPAN_SECONDS = 30 * DAY;
export const PENALTY_WINDOW_SECONDS = 180 * DAY;
export const SELF_REPORTED_BONUS_AGE_SECONDS = 365 * DAY;
/** 2020-01-01T00:00:00Z: a flag timestamp before this is implausible (not a flag). */
export const FLAG_FLOOR_SECONDS = 1_577_836_800;

export const REVENUE_VOLUME_MAX = 30;
/** Decades of window revenue in dollars (log10(1 + dollars)) that earn the full volume points: $9,999. */
export const REVENUE_VOLUME_DECADES = 4;
export const TREND_POINTS: Readonly<Record<RevenueTrend, number>> = { up: 5, stable: 3, down: 0, insufficient: 0 };
export const CADENCE_MAX = 35;
/** Distinct active UTC days in the cadence window that earn the full cadence points. */
export const CADENCE_FULL_DAYS = 45;
export const TRUST_MAX = 30;
export const TRUST_WEIGHTS: readonly number[] = [0.4, 0.7, 1.0];
export const SELF_REPORTED_GRADUATED_WEIGHT = 0.55;

export const RATING_BANDS: ReadonlyArray<readonly [McrRating, number]> = [
  ["AAA", 95],
  ["AA", 85],
  ["A", 75],
  ["BBB", 60],
  ["BB", 45],
  ["B", 30],
];

export function ratingFor(score: number): McrRating {
  for (const [rating, floor] of RATING_BANDS) if (score >= floor) return rating;
  return "NR";
}

/** The `negative_flag` field: a flag timestamp in the plausible range 2020-01-01 <= ts <= now + 1 day. */
export function negativeFlagOf(flaggedAt: number | null, nowSeconds: number): boolean {
  return flaggedAt !== null && flaggedAt >= FLAG_FLOOR_SECONDS && flaggedAt <= nowSeconds + DAY;
}

/**
 * Sums of USD cents without a BigInt allocation per event: amounts add up in a double while the running sum stays an
 * exact integer (below 2^53), and spill into a BigInt only when it would not; the result equals the plain BigInt sum.
 */
class CentsSum {
  private small = 0;
  private big = 0n;

  add(cents: bigint): void {
    if (cents <= SAFE_CENTS && cents >= -SAFE_CENTS) {
      const next = this.small + Number(cents);
      if (Number.isSafeInteger(next)) {
        this.small = next;
        return;
      }
    }
    this.big += BigInt(this.small) + cents;
    this.small = 0;
  }

  get value(): bigint {
    return this.big + BigInt(this.small);
  }
}
const SAFE_CENTS = BigInt(Number.MAX_SAFE_INTEGER);

const STATUS_NONE = 0;
const STATUS_OK = 1;
const STATUS_NOT_OK = 2;

/**
 * One pass over the events gathers every figure the score needs, in the events' order, with no per-event objects:
 * counts, the cents sums (all history, the score window, the two trend windows), the time span, the latest record
 * and the cadence days. The trust mean needs the first event's time before it can weigh self-reported events, so it
 * is a second pass over the window in the same order (the floating-point sum is order-sensitive).
 */
export function scoreMachine(inputs: ScoringInputs): McrScore {
  const { nowSeconds, events } = inputs;
  const windowStart = nowSeconds - SCORE_WINDOW_SECONDS;
  const cadenceStart = nowSeconds - CADENCE_WINDOW_SECONDS;
  const recentStart = nowSeconds - TREND_WINDOW_SECONDS;
  const previousStart = recentStart - TREND_WINDOW_SECONDS;
  const total = new CentsSum();
  const windowOk = new CentsSum();
  const recent = new CentsSum();
  const previous = new CentsSum();
  let revenueCount = 0;
  let activityCount = 0;
  let inWindowCount = 0;
  let recentCount = 0;
  let previousCount = 0;
  let degraded = false;
  let lastUpdated = -Infinity;
  let firstTime = Infinity;
  let lastTime = -Infinity;
  const cadenceDays = new Set<number>();

  for (let i = 0; i < events.length; i++) {
    const event = events[i]!;
    const t = event.timestamp;
    lastUpdated = Math.max(lastUpdated, event.recordedAt);
    firstTime = Math.min(firstTime, t);
    lastTime = Math.max(lastTime, t);
    if (event.eventType === EVENT_ACTIVITY) activityCount++;
    let status = STATUS_NONE;
    let cents = 0n;
    if (event.eventType === EVENT_REVENUE) {
      revenueCount++;
      if (event.currency === "USD") {
        // convertToUsdCents' first rule, inline: the common case costs no call and no result object.
        status = STATUS_OK;
        cents = event.value;
      } else {
        const conversion = convertToUsdCents(event.value, event.currency, t, inputs.rates);
        status = conversion.status === "ok" ? STATUS_OK : STATUS_NOT_OK;
        cents = conversion.usdCents ?? 0n;
      }
      total.add(cents);
    }
    if (t > cadenceStart && t <= nowSeconds) cadenceDays.add(Math.floor(t / DAY));
    if (t > windowStart && t <= nowSeconds) {
      inWindowCount++;
      if (status === STATUS_NOT_OK) degraded = true;
      if (status === STATUS_OK) windowOk.add(cents);
    }
    if (status === STATUS_OK && t <= nowSeconds) {
      if (t > recentStart) {
        recentCount++;
        recent.add(cents);
      } else if (t > previousStart) {
        previousCount++;
        previous.add(cents);
      }
    }
  }

  const totalRevenue = total.value;
  const revenueTrend = recentCount === 0 || previousCount === 0 ? "insufficient" : trendBetween(recent.value, previous.value);
  const base = {
    mcrDegraded: degraded,
    bonded: inputs.bonded,
    negativeFlag: negativeFlagOf(inputs.flaggedAt, nowSeconds),
    eventCount: events.length,
    revenueEventCount: revenueCount,
    activityEventCount: activityCount,
    revenueTrend,
    totalRevenue,
    averageRevenuePerEvent: revenueCount === 0 ? 0 : Number(totalRevenue) / revenueCount,
    lastUpdated: events.length === 0 ? null : lastUpdated,
  };
  if (!inputs.bonded) return { ...base, mcrScore: 0, mcr: "NR" };
  // Both graduation gates: enough events, and a first-to-last span covering a sustained operating window.
  if (events.length < GRADUATION_MIN_EVENTS || !(lastTime - firstTime >= GRADUATION_MIN_SPAN_SECONDS)) {
    return { ...base, mcrScore: 0, mcr: "Provisioned" };
  }

  const points = revenuePoints(windowOk.value, revenueTrend)
    + CADENCE_MAX * Math.min(1, cadenceDays.size / CADENCE_FULL_DAYS)
    + trustPoints(inputs, firstTime, inWindowCount);
  // Points are settled to 6 decimals first, so float noise (0.7 * 30 = 20.999999999999996) cannot flip a half.
  const score = Math.min(100, Math.max(0, Math.round(Math.round(points * 1e6) / 1e6)));
  const mcr = ratingFor(score);
  return { ...base, mcrScore: mcr === "NR" ? 0 : score, mcr };
}

/** Last 30 days against the 30 before, both holding a converted revenue event: up, down or stable. */
function trendBetween(recentSum: bigint, previousSum: bigint): RevenueTrend {
  if (recentSum * 100n >= previousSum * 110n && recentSum > previousSum) return "up";
  if (recentSum * 100n <= previousSum * 90n && recentSum < previousSum) return "down";
  return "stable";
}

/** Volume on a log scale ($9 -> 7.5, $99 -> 15, $999 -> 22.5, $9,999 and more -> 30) plus the trend's points. */
function revenuePoints(cents: bigint, trend: RevenueTrend): number {
  const dollars = Number(cents) / 100;
  const volume = Math.min(1, Math.log10(1 + dollars) / REVENUE_VOLUME_DECADES);
  return REVENUE_VOLUME_MAX * volume + TREND_POINTS[trend];
}

/** Mean trust weight of the window's events; an override replaces it; an active negative flag zeroes it. */
function trustPoints(inputs: ScoringInputs, firstEvent: number, inWindowCount: number): number {
  const { nowSeconds, flaggedAt } = inputs;
  if (flaggedAt !== null && negativeFlagOf(flaggedAt, nowSeconds) && nowSeconds < flaggedAt + PENALTY_WINDOW_SECONDS) {
    return 0;
  }
  if (inputs.trustOverride !== null) return (TRUST_MAX * inputs.trustOverride) / 100;
  if (inWindowCount === 0) return 0;
  const selfReportedWeight =
    nowSeconds - firstEvent >= SELF_REPORTED_BONUS_AGE_SECONDS ? SELF_REPORTED_GRADUATED_WEIGHT : TRUST_WEIGHTS[0]!;
  const windowStart = nowSeconds - SCORE_WINDOW_SECONDS;
  let total = 0;
  for (const e of inputs.events) {
    if (e.timestamp > windowStart && e.timestamp <= nowSeconds) {
      total += e.trustLevel === 0 ? selfReportedWeight : TRUST_WEIGHTS[e.trustLevel] ?? 0;
    }
  }
  return (TRUST_MAX * total) / inWindowCount;
}
