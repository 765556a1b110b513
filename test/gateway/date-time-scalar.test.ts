import { describe, expect, it } from "vitest";
import { seeded } from "../support/seeded.js";
import { Kind } from "graphql";
import { GraphQLDateTime } from "graphql-scalars";
import { DateTimeScalar } from "../../subgraphs/shared/date-time.scalar.js";

describe("DateTime scalar", () => {
  it("passes a valid RFC 3339 string through exactly as written", () => {
    for (const value of ["2026-11-26T21:00:00Z", "2026-11-26T21:00:00.123Z", "2026-11-26T21:00:00.123456+00:00"]) {
      expect(DateTimeScalar.serialize(value)).toBe(value);
      expect(DateTimeScalar.parseValue(value)).toBe(value);
      expect(DateTimeScalar.parseLiteral({ kind: Kind.STRING, value })).toBe(value);
    }
  });

  it("serialises a Date as toISOString()", () => {
    expect(DateTimeScalar.serialize(new Date(Date.UTC(2026, 10, 26, 21)))).toBe("2026-11-26T21:00:00.000Z");
  });

  it("refuses dates without a time, offsets missing, non-strings and invalid Dates", () => {
    for (const value of ["2026-11-26", "2026-11-26T21:00:00", "yesterday", 1764190800000, null, new Date(Number.NaN)]) {
      expect(() => DateTimeScalar.serialize(value)).toThrow(/DateTime/);
    }
    expect(() => DateTimeScalar.parseLiteral({ kind: Kind.INT, value: "1" })).toThrow(/DateTime/);
  });

  it("takes a string of toISOString()'s form exactly when graphql-scalars' DateTime does (20,000 random ones)", () => {
    const next = seeded(20_261_127).below;
    const digits = (n: number, width: number) => String(n).padStart(width, "0");
    let accepted = 0;
    for (let i = 0; i < 20_000; i++) {
      // Fields around and beyond their ranges: month 00-13, day 00-32, hour 00-24, minute and second 00-60, years
      // with and without leap days, year 0000 and 9999.
      const year = [0, 1900, 2000, 2024, 2026, 2100, 9999][next(7)]!;
      const text = `${digits(year, 4)}-${digits(next(14), 2)}-${digits(next(33), 2)}T${digits(next(25), 2)}:${digits(next(61), 2)}:${digits(next(61), 2)}.${digits(next(1000), 3)}Z`;
      let theirs: boolean;
      try {
        GraphQLDateTime.parseValue(text);
        theirs = true;
      } catch {
        theirs = false;
      }
      let ours: boolean;
      try {
        ours = DateTimeScalar.serialize(text) === text;
      } catch {
        ours = false;
      }
      expect(ours, text).toBe(theirs);
      if (ours) accepted += 1;
    }
    // Both outcomes were drawn many times.
    expect(accepted).toBeGreaterThan(2_000);
    expect(accepted).toBeLessThan(18_000);
  });
});
