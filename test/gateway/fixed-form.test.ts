/**
 * The fixed-form checks the instant parsers' fast paths rest on (subgraphs/shared/fixed-form.ts). The parsers' own
 * tests compare their answers with the reference parsers, which a check that refused too much would still pass (the
 * reference answers instead): these pin what the check accepts.
 */
import { describe, expect, it } from "vitest";
import { fixedForm, startsInForm, twoDigits } from "../../subgraphs/shared/fixed-form.js";

describe("fixed forms", () => {
  const form = fixedForm("00-0:0");

  it("accept every digit where the form has one, and the form's other characters as they are", () => {
    for (let digit = 0; digit <= 9; digit++) {
      const d = String(digit);
      expect(startsInForm(`${d}${d}-${d}:${d}`, form), d).toBe(true);
    }
    expect(startsInForm("12-3:4 and more", form)).toBe(true);
  });

  it("refuse the characters next to the digits, another separator, and a text shorter than the form", () => {
    for (const text of ["/2-3:4", ":2-3:4", "12-3:/", "12-3::", "12+3:4", "12-3-4", "12-3:", ""]) {
      expect(startsInForm(text, form), text).toBe(false);
    }
  });

  it("read two digits as their number", () => {
    expect(twoDigits("x07", 1)).toBe(7);
    expect(twoDigits("99", 0)).toBe(99);
    expect(twoDigits("00", 0)).toBe(0);
  });
});
