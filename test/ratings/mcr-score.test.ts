/**
 * The MCR algorithm of docs/mcr-scoring.md, table by table: graduation, components, bands, negative flag, overrides,
 * trend, FX conversion and degraded mode. Expected values are worked out in the doc's worked examples, not computed
 * with the code under test.
 */
import { mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { convertToUsdCents, FileRates, FixedRates } from "../../subgraphs/ratings/scoring/fx.js";
import { ratingFor, scoreMachine, type ScoredEvent, type ScoringInputs } from "../../subgraphs/ratings/scoring/mcr-score.js";

const DAY = 86_400;
const NOW = 1_800_000_000;

/** An event `daysAgo` days before NOW (one hour earlier still, so no event sits on a window boundary). */
function event(daysAgo: number, kind: "revenue" | "activity", options: Partial<ScoredEvent> = {}): ScoredEvent {
  const timestamp = NOW - daysAgo * DAY - 3600;
  return {
    eventType: kind === "revenue" ? 0 : 1,
    value: kind === "revenue" ? 100n : 1n,
    currency: kind === "revenue" ? "USD" : "",
    timestamp,
    trustLevel: 2,
    recordedAt: timestamp + 60,
    ...options,
  };
}

const days = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

/** 50 daily revenue events of $300 at trust 2: $15,000 in the window, trend up (29 recent vs 21 previous days). */
const STRONG = days(1, 50).map((d) => event(d, "revenue", { value: 30_000n }));
/** 45 daily activity events at trust 1: full cadence, trust 21. */
const ACTIVE_LEVEL_1 = days(1, 45).map((d) => event(d, "activity", { trustLevel: 1 }));

function inputs(events: ScoredEvent[], extra: Partial<ScoringInputs> = {}): ScoringInputs {
  return { events, bonded: true, trustOverride: null, flaggedAt: null, nowSeconds: NOW, rates: new FixedRates(), ...extra };
}

describe("ratings and bands", () => {
  it.each([
    [100, "AAA"], [95, "AAA"], [94, "AA"], [85, "AA"], [84, "A"], [75, "A"], [74, "BBB"], [60, "BBB"],
    [59, "BB"], [45, "BB"], [44, "B"], [30, "B"], [29, "NR"], [0, "NR"],
  ] as const)("score %i is %s", (score, rating) => {
    expect(ratingFor(score)).toBe(rating);
  });

  const cases: Array<[name: string, input: ScoringInputs, score: number, rating: string]> = [
    ["revenue 35 + cadence 35 + trust 30", inputs(STRONG), 100, "AAA"],
    ["trust override 50%: 35 + 35 + 15", inputs(STRONG, { trustOverride: 50 }), 85, "AA"],
    [
      "self-reported events, history over a year: 35 + 35 + 16.5 = 86.5",
      inputs([event(400, "activity", { trustLevel: 0 }), ...STRONG.map((e) => ({ ...e, trustLevel: 0 }))]),
      87,
      "AA",
    ],
    ["self-reported events, history under a year: 35 + 35 + 12", inputs(STRONG.map((e) => ({ ...e, trustLevel: 0 }))), 82, "A"],
    ["negative flag 10 days ago: trust 0, 35 + 35", inputs(STRONG, { flaggedAt: NOW - 10 * DAY }), 70, "BBB"],
    [
      "activity 45 days at trust 1 and $9 of revenue: 7.5 + 35 + 21 = 63.5",
      inputs([...ACTIVE_LEVEL_1, event(5, "revenue", { value: 900n, trustLevel: 1 })]),
      64,
      "BBB",
    ],
    ["activity only, 45 days at trust 1: 0 + 35 + 21", inputs(ACTIVE_LEVEL_1), 56, "BB"],
    [
      "activity on 20 days over 40 at trust 1: 35 x 20/45 + 21 = 36.6",
      inputs([...ACTIVE_LEVEL_1.slice(0, 19), event(40, "activity", { trustLevel: 1 })]),
      37,
      "B",
    ],
    [
      "activity 10 days over 31 at trust 0: 7.8 + 12 = 19.8, below 30",
      inputs([...days(1, 9).map((d) => event(d, "activity", { trustLevel: 0 })), event(32, "activity", { trustLevel: 0 })]),
      0,
      "NR",
    ],
    ["unbonded, whatever the history", inputs(STRONG, { bonded: false }), 0, "NR"],
    ["bonded, 9 events over 60 days: not enough events", inputs(days(1, 9).map((d) => event(d * 7, "activity"))), 0, "Provisioned"],
    ["bonded, 12 events within 20 days: history too short", inputs(days(1, 12).map((d) => event(d, "activity"))), 0, "Provisioned"],
    ["bonded, no events", inputs([]), 0, "Provisioned"],
    ["unbonded, no events", inputs([], { bonded: false }), 0, "NR"],
  ];

  it.each(cases)("%s", (_name, input, score, rating) => {
    const result = scoreMachine(input);
    expect({ score: result.mcrScore, rating: result.mcr }).toEqual({ score, rating });
  });
});

describe("negative flag", () => {
  it.each([
    ["flagged 10 days ago: field true, trust penalised", NOW - 10 * DAY, true, 70],
    ["flagged 200 days ago: penalty over, field stays true", NOW - 200 * DAY, true, 100],
    ["timestamp before 2020-01-01: not a flag", 1000, false, 100],
    ["timestamp more than a day in the future: not a flag", NOW + 2 * DAY, false, 100],
    ["timestamp within the next day: a flag", NOW + DAY - 1, true, 70],
  ])("%s", (_name, flaggedAt, negativeFlag, score) => {
    const result = scoreMachine(inputs(STRONG, { flaggedAt }));
    expect({ negativeFlag: result.negativeFlag, score: result.mcrScore }).toEqual({ negativeFlag, score });
  });
});

describe("revenue trend (last 30 days against the 30 before)", () => {
  const trend = (recentCents: bigint, previousCents: bigint | null) =>
    scoreMachine(
      inputs([
        event(10, "revenue", { value: recentCents }),
        ...(previousCents === null ? [] : [event(40, "revenue", { value: previousCents })]),
      ]),
    ).revenueTrend;

  it.each([
    [110n, 100n, "up"],
    [109n, 100n, "stable"],
    [100n, 100n, "stable"],
    [91n, 100n, "stable"],
    [90n, 100n, "down"],
    [1n, 0n, "up"],
    [0n, 0n, "stable"],
  ] as const)("recent %s cents, previous %s: %s", (recent, previous, expected) => {
    expect(trend(recent, previous)).toBe(expected);
  });

  it("no revenue in the previous window is insufficient", () => {
    expect(trend(100n, null)).toBe("insufficient");
  });

  it("revenue older than 60 days does not count", () => {
    expect(scoreMachine(inputs([event(10, "revenue"), event(61, "revenue")])).revenueTrend).toBe("insufficient");
  });
});

describe("counts, totals and last_updated", () => {
  it("counts every event, totals revenue in USD cents, averages per revenue event", () => {
    const history = [
      event(300, "revenue", { value: 1000n }),
      event(20, "revenue", { value: 2000n }),
      event(5, "activity", { recordedAt: NOW - 10 }),
      event(3, "revenue", { value: 4000n }),
    ];
    const result = scoreMachine(inputs(history));
    expect(result).toMatchObject({
      eventCount: 4,
      revenueEventCount: 3,
      activityEventCount: 1,
      totalRevenue: 7000n,
      averageRevenuePerEvent: 7000 / 3,
      lastUpdated: NOW - 10,
    });
  });

  it("no events: totals 0, average 0, last_updated null, trend insufficient", () => {
    expect(scoreMachine(inputs([]))).toMatchObject({
      eventCount: 0,
      totalRevenue: 0n,
      averageRevenuePerEvent: 0,
      lastUpdated: null,
      revenueTrend: "insufficient",
      mcrDegraded: false,
    });
  });
});

describe("FX: conversion at the event's time", () => {
  const fixed = new FixedRates();
  it.each([
    ["USD needs no rate", 12_345n, "USD", { status: "ok", usdCents: 12_345n }],
    ["EUR cents at 1.08", 1000n, "EUR", { status: "ok", usdCents: 1080n }],
    ["JPY has no minor unit: 1000 yen at 0.0067", 1000n, "JPY", { status: "ok", usdCents: 670n }],
    ["BHD has three: 1000 fils at 2.65", 1000n, "BHD", { status: "ok", usdCents: 265n }],
    ["an exact half cent rounds up: 50 yen at 0.0067 = 33.5 cents", 50n, "JPY", { status: "ok", usdCents: 34n }],
    ["an exact half cent with three minor digits: 100 fils at 2.65 = 26.5 cents", 100n, "BHD", { status: "ok", usdCents: 27n }],
    ["below half a cent rounds down: 5 yen at 0.0067 = 3.35 cents", 5n, "JPY", { status: "ok", usdCents: 3n }],
    ["above half a cent rounds up: 2 fils at 2.65 = 0.53 cents", 2n, "BHD", { status: "ok", usdCents: 1n }],
    ["a currency the source does not list", 1000n, "XYZ", { status: "unsupported_currency", usdCents: null }],
  ])("%s", (_name, value, currency, expected) => {
    expect(convertToUsdCents(value, currency, NOW, fixed)).toEqual(expected);
  });

  const dir = mkdtempSync(path.join(os.tmpdir(), "fx-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, "rates.json");
  const day = (unix: number) => new Date(unix * 1000).toISOString().slice(0, 10);

  it("a dated source applies the latest rate on or before the event's day, within the maximum age", () => {
    writeFileSync(file, JSON.stringify({ EUR: { [day(NOW - 10 * DAY)]: 1.1, [day(NOW - 3 * DAY)]: 1.2 } }));
    const rates = new FileRates(file, 2 * DAY);
    expect(convertToUsdCents(100n, "EUR", NOW - 3 * DAY, rates)).toEqual({ status: "ok", usdCents: 120n });
    expect(convertToUsdCents(100n, "EUR", NOW - DAY, rates)).toEqual({ status: "ok", usdCents: 120n });
    expect(convertToUsdCents(100n, "EUR", NOW - 9 * DAY, rates)).toEqual({ status: "ok", usdCents: 110n });
    // Seven days after the older rate and before the newer one: stale.
    expect(convertToUsdCents(100n, "EUR", NOW - 6 * DAY, rates).status).toBe("fx_unavailable");
    // Before the first rate: none.
    expect(convertToUsdCents(100n, "EUR", NOW - 20 * DAY, rates).status).toBe("fx_unavailable");
    expect(convertToUsdCents(100n, "GBP", NOW, rates).status).toBe("unsupported_currency");
  });

  it("a missing or broken file makes every rate unavailable, and a repaired file is read again", () => {
    const rates = new FileRates(path.join(dir, "missing.json"), DAY);
    expect(convertToUsdCents(100n, "EUR", NOW, rates).status).toBe("fx_unavailable");
    writeFileSync(file, "{not json");
    const broken = new FileRates(file, DAY);
    expect(convertToUsdCents(100n, "EUR", NOW, broken).status).toBe("fx_unavailable");
    writeFileSync(file, JSON.stringify({ EUR: { [day(NOW)]: 1.5 } }));
    utimesSync(file, new Date(), new Date(Date.now() + 5000));
    expect(convertToUsdCents(100n, "EUR", NOW, broken)).toEqual({ status: "ok", usdCents: 150n });
  });

  it("a non-ok revenue event in the score window makes the answer degraded and adds no revenue", () => {
    const result = scoreMachine(inputs([event(3, "revenue", { value: 5000n }), event(4, "revenue", { currency: "XYZ", value: 999n })]));
    expect(result).toMatchObject({ mcrDegraded: true, totalRevenue: 5000n, revenueEventCount: 2, averageRevenuePerEvent: 2500 });
  });

  it("a non-ok revenue event outside the 180-day window does not degrade the answer", () => {
    const result = scoreMachine(inputs([event(3, "revenue"), event(200, "revenue", { currency: "XYZ" })]));
    expect(result.mcrDegraded).toBe(false);
  });

  it("activity events never need a rate", () => {
    expect(scoreMachine(inputs([event(3, "activity", { currency: "" })])).mcrDegraded).toBe(false);
  });
});

describe("revenue sums past 2^53 cents", () => {
  it("total revenue is exact for amounts around and beyond the double's integer range, in any order", () => {
    const safe = BigInt(Number.MAX_SAFE_INTEGER);
    const values = [1n, safe - 1n, 2n, safe, 3n, 10n ** 30n, 7n, safe + 5n, 999n, 2n ** 200n, 5n, safe * 3n];
    for (const order of [values, [...values].reverse()]) {
      const events = order.map((value, i) => event(i + 1, "revenue", { value }));
      const result = scoreMachine(inputs(events));
      // (safe - 1) + safe + (safe + 5) + 3 safe, the small ones 1 + 2 + 3 + 7 + 999 + 5, and the two huge ones.
      expect(result.totalRevenue).toBe(9_007_199_254_740_991n * 6n + 4n + 1_017n + 10n ** 30n + 2n ** 200n);
      expect(result.revenueEventCount).toBe(values.length);
    }
  });
});
