import { describe, expect, it } from "vitest";
import { Kind } from "graphql";
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
});
