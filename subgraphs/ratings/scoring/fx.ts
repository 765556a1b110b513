/**
 * Revenue conversion to USD cents at each event's time (docs/mcr-scoring.md, "FX").
 *
 * An event's `value` is an ISO 4217 minor-unit integer in its `currency` (2 decimals by default; JPY, KRW, VND 0;
 * BHD, KWD, OMR 3). USD needs no rate. Every other currency needs a rate (USD per major unit) from the configured
 * source: `fixed` (the embedded table below, valid at any time) or `file:<path>` (dated rates; the rate at an event is
 * the latest one on or before its UTC day, at most MCR_FX_MAX_AGE_SECONDS older than that day). A currency the source does
 * not list is `unsupported_currency`; a listed currency without a usable rate at that time is `fx_unavailable`.
 */
import { readFileSync, statSync } from "node:fs";

export type AmountStatus = "ok" | "unsupported_currency" | "fx_unavailable";

export type RateLookup = { kind: "rate"; usdPerUnit: number } | { kind: "unsupported" } | { kind: "unavailable" };

export interface RateSource {
  rateAt(currency: string, timestampSeconds: number): RateLookup;
}

export interface Conversion {
  status: AmountStatus;
  /** USD cents, rounded half up; null unless `ok`. */
  usdCents: bigint | null;
}

const MINOR_UNIT_EXPONENTS: Readonly<Record<string, number>> = { JPY: 0, KRW: 0, VND: 0, BHD: 3, KWD: 3, OMR: 3 };

/** Rates are applied with 8 decimal places. */
const RATE_SCALE = 100_000_000n;

/** USD per major unit; the embedded default (`MCR_FX_SOURCE=fixed`), for development and demos. */
export const FIXED_RATES: Readonly<Record<string, number>> = {
  EUR: 1.08,
  GBP: 1.27,
  CHF: 1.12,
  CAD: 0.73,
  AUD: 0.66,
  SGD: 0.74,
  JPY: 0.0067,
  KRW: 0.00073,
  BHD: 2.65,
  KWD: 3.25,
};

export function convertToUsdCents(value: bigint, currency: string, timestampSeconds: number, rates: RateSource): Conversion {
  if (currency === "USD") return { status: "ok", usdCents: value };
  const lookup = rates.rateAt(currency, timestampSeconds);
  if (lookup.kind === "unsupported") return { status: "unsupported_currency", usdCents: null };
  if (lookup.kind === "unavailable") return { status: "fx_unavailable", usdCents: null };
  const exponent = MINOR_UNIT_EXPONENTS[currency] ?? 2;
  const rate = BigInt(Math.round(lookup.usdPerUnit * Number(RATE_SCALE)));
  const numerator = value * rate * 10n ** BigInt(Math.max(0, 2 - exponent));
  const denominator = RATE_SCALE * 10n ** BigInt(Math.max(0, exponent - 2));
  return { status: "ok", usdCents: (numerator + denominator / 2n) / denominator };
}

export class FixedRates implements RateSource {
  constructor(private readonly table: Readonly<Record<string, number>> = FIXED_RATES) {}

  rateAt(currency: string): RateLookup {
    const rate = this.table[currency];
    return rate === undefined ? { kind: "unsupported" } : { kind: "rate", usdPerUnit: rate };
  }
}

interface DatedRate {
  day: number;
  usdPerUnit: number;
}

const DAY_SECONDS = 86_400;

/**
 * Dated rates from a JSON file `{"EUR": {"2026-01-01": 1.0850, ...}, ...}` (USD per major unit, one entry per UTC
 * day). The file is read again when it changes, so a degraded answer (never cached) can recover on the next request.
 * A file that cannot be read or parsed makes every rate unavailable until it can.
 */
export class FileRates implements RateSource {
  private loadedMtimeMs = -1;
  private rates: Map<string, DatedRate[]> | null = null;

  constructor(
    private readonly file: string,
    private readonly maxAgeSeconds: number,
  ) {}

  rateAt(currency: string, timestampSeconds: number): RateLookup {
    const rates = this.current();
    if (rates === null) return { kind: "unavailable" };
    const series = rates.get(currency);
    if (!series) return { kind: "unsupported" };
    let found: DatedRate | undefined;
    for (const entry of series) {
      if (entry.day > timestampSeconds) break;
      found = entry;
    }
    // Ages are counted in whole days: a rate applies to its whole UTC day.
    const eventDay = timestampSeconds - (timestampSeconds % DAY_SECONDS);
    if (!found || eventDay - found.day > this.maxAgeSeconds) return { kind: "unavailable" };
    return { kind: "rate", usdPerUnit: found.usdPerUnit };
  }

  private current(): Map<string, DatedRate[]> | null {
    try {
      const { mtimeMs } = statSync(this.file);
      if (mtimeMs !== this.loadedMtimeMs) {
        this.rates = parseRateFile(readFileSync(this.file, "utf8"));
        this.loadedMtimeMs = mtimeMs;
      }
    } catch {
      this.rates = null;
      this.loadedMtimeMs = -1;
    }
    return this.rates;
  }
}

function parseRateFile(text: string): Map<string, DatedRate[]> {
  const document = JSON.parse(text) as Record<string, Record<string, number>>;
  const rates = new Map<string, DatedRate[]>();
  for (const [currency, days] of Object.entries(document)) {
    const series: DatedRate[] = [];
    for (const [day, usdPerUnit] of Object.entries(days)) {
      const seconds = Date.parse(`${day}T00:00:00Z`) / 1000;
      if (!Number.isFinite(seconds) || typeof usdPerUnit !== "number" || !(usdPerUnit > 0)) {
        throw new Error(`bad FX entry ${currency} ${day}`);
      }
      series.push({ day: seconds, usdPerUnit });
    }
    rates.set(currency, series.sort((a, b) => a.day - b.day));
  }
  return rates;
}

export function rateSourceFor(source: string, maxAgeSeconds: number): RateSource {
  return source.startsWith("file:") ? new FileRates(source.slice("file:".length), maxAgeSeconds) : new FixedRates();
}
