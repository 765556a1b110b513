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

interface ConvertedEvent extends ScoredEvent {
  amountStatus: AmountStatus | null;
  usdCents: bigint;
}

export function scoreMachine(inputs: ScoringInputs): McrScore {
  const { nowSeconds } = inputs;
  const events: ConvertedEvent[] = inputs.events.map((event) => {
    if (event.eventType !== EVENT_REVENUE) return { ...event, amountStatus: null, usdCents: 0n };
    const conversion = convertToUsdCents(event.value, event.currency, event.timestamp, inputs.rates);
    return { ...event, amountStatus: conversion.status, usdCents: conversion.usdCents ?? 0n };
  });
  const revenue = events.filter((e) => e.eventType === EVENT_REVENUE);
  const totalRevenue = revenue.reduce((sum, e) => sum + e.usdCents, 0n);
  const windowStart = nowSeconds - SCORE_WINDOW_SECONDS;
  const inWindow = events.filter((e) => e.timestamp > windowStart && e.timestamp <= nowSeconds);
  const revenueTrend = trendOf(revenue, nowSeconds);

  const base = {
    mcrDegraded: inWindow.some((e) => e.amountStatus !== null && e.amountStatus !== "ok"),
    bonded: inputs.bonded,
    negativeFlag: negativeFlagOf(inputs.flaggedAt, nowSeconds),
    eventCount: events.length,
    revenueEventCount: revenue.length,
    activityEventCount: events.filter((e) => e.eventType === EVENT_ACTIVITY).length,
    revenueTrend,
    totalRevenue,
    averageRevenuePerEvent: revenue.length === 0 ? 0 : Number(totalRevenue) / revenue.length,
    lastUpdated: events.length === 0 ? null : Math.max(...events.map((e) => e.recordedAt)),
  };
  if (!inputs.bonded) return { ...base, mcrScore: 0, mcr: "NR" };
  if (!graduated(events)) return { ...base, mcrScore: 0, mcr: "Provisioned" };

  const points = revenuePoints(inWindow, revenueTrend) + cadencePoints(events, nowSeconds) + trustPoints(inputs, events, inWindow);
  // Points are settled to 6 decimals first, so float noise (0.7 * 30 = 20.999999999999996) cannot flip a half.
  const score = Math.min(100, Math.max(0, Math.round(Math.round(points * 1e6) / 1e6)));
  const mcr = ratingFor(score);
  return { ...base, mcrScore: mcr === "NR" ? 0 : score, mcr };
}

/** Both gates: enough events, and a first-to-last span covering a sustained operating window. */
function graduated(events: readonly ScoredEvent[]): boolean {
  if (events.length < GRADUATION_MIN_EVENTS) return false;
  const times = events.map((e) => e.timestamp);
  return Math.max(...times) - Math.min(...times) >= GRADUATION_MIN_SPAN_SECONDS;
}

/** Last 30 days against the 30 before; `insufficient` unless both hold a converted revenue event. */
export function trendOf(revenue: readonly ConvertedEvent[], nowSeconds: number): RevenueTrend {
  const recentStart = nowSeconds - TREND_WINDOW_SECONDS;
  const previousStart = recentStart - TREND_WINDOW_SECONDS;
  const ok = revenue.filter((e) => e.amountStatus === "ok" && e.timestamp <= nowSeconds);
  const recent = ok.filter((e) => e.timestamp > recentStart);
  const previous = ok.filter((e) => e.timestamp > previousStart && e.timestamp <= recentStart);
  if (recent.length === 0 || previous.length === 0) return "insufficient";
  const recentSum = recent.reduce((sum, e) => sum + e.usdCents, 0n);
  const previousSum = previous.reduce((sum, e) => sum + e.usdCents, 0n);
  if (recentSum * 100n >= previousSum * 110n && recentSum > previousSum) return "up";
  if (recentSum * 100n <= previousSum * 90n && recentSum < previousSum) return "down";
  return "stable";
}

/** Volume on a log scale ($9 -> 7.5, $99 -> 15, $999 -> 22.5, $9,999 and more -> 30) plus the trend's points. */
function revenuePoints(inWindow: readonly ConvertedEvent[], trend: RevenueTrend): number {
  const cents = inWindow.reduce((sum, e) => sum + (e.amountStatus === "ok" ? e.usdCents : 0n), 0n);
  const dollars = Number(cents) / 100;
  const volume = Math.min(1, Math.log10(1 + dollars) / REVENUE_VOLUME_DECADES);
  return REVENUE_VOLUME_MAX * volume + TREND_POINTS[trend];
}

/** Distinct UTC days with any event in the last 90 days; 45 of them earn all 35 points. */
function cadencePoints(events: readonly ScoredEvent[], nowSeconds: number): number {
  const start = nowSeconds - CADENCE_WINDOW_SECONDS;
  const days = new Set(events.filter((e) => e.timestamp > start && e.timestamp <= nowSeconds).map((e) => Math.floor(e.timestamp / DAY)));
  return CADENCE_MAX * Math.min(1, days.size / CADENCE_FULL_DAYS);
}

/** Mean trust weight of the window's events; an override replaces it; an active negative flag zeroes it. */
function trustPoints(inputs: ScoringInputs, events: readonly ScoredEvent[], inWindow: readonly ScoredEvent[]): number {
  const { nowSeconds, flaggedAt } = inputs;
  if (flaggedAt !== null && negativeFlagOf(flaggedAt, nowSeconds) && nowSeconds < flaggedAt + PENALTY_WINDOW_SECONDS) {
    return 0;
  }
  if (inputs.trustOverride !== null) return (TRUST_MAX * inputs.trustOverride) / 100;
  if (inWindow.length === 0) return 0;
  const firstEvent = Math.min(...events.map((e) => e.timestamp));
  const selfReportedWeight =
    nowSeconds - firstEvent >= SELF_REPORTED_BONUS_AGE_SECONDS ? SELF_REPORTED_GRADUATED_WEIGHT : TRUST_WEIGHTS[0]!;
  const total = inWindow.reduce((sum, e) => sum + (e.trustLevel === 0 ? selfReportedWeight : TRUST_WEIGHTS[e.trustLevel] ?? 0), 0);
  return (TRUST_MAX * total) / inWindow.length;
}
