/**
 * The pool's timestamptz parser (subgraphs/shared/db/timestamp-parser.ts) against pg's own (postgres-date through
 * pg-types), over random texts of the forms PostgreSQL writes: the UTC form it reads itself and the others it hands
 * to pg's parser (other zones, years before 100, BC, infinity). Both must give the same value.
 */
import pg from "pg";
import { describe, expect, it } from "vitest";
import { seeded } from "../support/seeded.js";
import { parseTimestamptz, POOL_TYPES } from "../../subgraphs/shared/db/timestamp-parser.js";

const pgParser = pg.types.getTypeParser(1184, "text") as (text: string) => unknown;

function same(ours: unknown, theirs: unknown, text: string): void {
  if (theirs instanceof Date) {
    expect(ours, text).toBeInstanceOf(Date);
    expect(Object.is((ours as Date).getTime(), theirs.getTime()), text).toBe(true);
  } else {
    expect(ours, text).toEqual(theirs);
  }
}

describe("timestamptz parser", () => {
  it("gives pg's value for 50,000 random texts", () => {
    const next = seeded(20_261_127).below;
    const digits = (n: number, width: number) => String(n).padStart(width, "0");
    const zones = ["+00", "+00", "+00", "+00", "+05:30", "-08", "+00:00", "Z", ""];
    for (let i = 0; i < 50_000; i++) {
      const year = [1, 99, 100, 1970, 2026, 2038, 9999, next(10_000)][next(8)]!;
      const fraction = next(8) === 0 ? "" : `.${digits(next(10 ** 6), 6).slice(0, 1 + next(6))}`;
      const text = `${digits(year, 4)}-${digits(1 + next(12), 2)}-${digits(1 + next(28), 2)} ${digits(next(24), 2)}:${digits(next(60), 2)}:${digits(next(60), 2)}${fraction}${zones[next(zones.length)]}${next(50) === 0 ? " BC" : ""}`;
      same(parseTimestamptz(text), pgParser(text), text);
    }
    for (const text of ["infinity", "-infinity", "2026-11-27 18:48:23.845617+00", "2026-11-27 18:48:23+00", "0099-01-01 00:00:00+00", "garbage"]) {
      same(parseTimestamptz(text), pgParser(text), text);
    }
  });

  it("is the pool's parser for timestamptz text only; every other type keeps pg's", () => {
    expect(POOL_TYPES.getTypeParser(1184, "text")).toBe(parseTimestamptz);
    expect(POOL_TYPES.getTypeParser(1184, "binary")).toBe(pg.types.getTypeParser(1184, "binary"));
    for (const oid of [16, 20, 25, 114, 1114, 1700, 3802]) expect(POOL_TYPES.getTypeParser(oid, "text")).toBe(pg.types.getTypeParser(oid, "text"));
  });
});
