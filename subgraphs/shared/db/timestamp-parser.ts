/**
 * The `pg` pool's text parser for `timestamptz` values. pg's own (postgres-date through pg-types) runs three regular
 * expressions per value: 3.5% of the markets list's profile, a list row holding several instants. PostgreSQL writes a
 * timestamptz in the session's time zone; in UTC (`+00`) the text has one fixed form, `YYYY-MM-DD HH:MM:SS+00` with
 * up to six fraction digits before the zone, which is read here field by field into the Date postgres-date builds for
 * it (the same `Date.UTC` call, the fraction scaled by the same `1000 * parseFloat`). Every other text (another zone,
 * a year before 100, BC, infinity) goes to pg's own parser. test/db/timestamp-parser.test.ts compares the two.
 */
import pg from "pg";
import { fixedForm, startsInForm, twoDigits } from "../fixed-form.js";

const TIMESTAMPTZ = 1184;
const pgTimestamptz = pg.types.getTypeParser(TIMESTAMPTZ, "text") as (text: string) => unknown;
/** `YYYY-MM-DD HH:MM:SS`, the part every UTC text starts with. */
const FORM = fixedForm("0000-00-00 00:00:00");

export function parseTimestamptz(text: string): unknown {
  const length = text.length;
  if ((length !== 22 && (length < 24 || length > 29)) || !text.endsWith("+00") || !startsInForm(text, FORM)) return pgTimestamptz(text);
  if (length > 22) {
    if (text.charCodeAt(19) !== 46) return pgTimestamptz(text);
    for (let at = 20; at < length - 3; at++) {
      const code = text.charCodeAt(at);
      if (code < 48 || code > 57) return pgTimestamptz(text);
    }
  }
  const year = twoDigits(text, 0) * 100 + twoDigits(text, 2);
  // postgres-date sets years 0 to 99 apart (Date.UTC reads them as 1900 to 1999).
  if (year < 100) return pgTimestamptz(text);
  const ms = length > 22 ? 1000 * parseFloat(text.slice(19, length - 3)) : 0;
  return new Date(Date.UTC(year, twoDigits(text, 5) - 1, twoDigits(text, 8), twoDigits(text, 11), twoDigits(text, 14), twoDigits(text, 17), ms));
}

/** The pool's type table: pg's own, with the timestamptz text parser above. */
export const POOL_TYPES = {
  getTypeParser: (oid: number, format?: "text" | "binary") =>
    oid === TIMESTAMPTZ && format !== "binary" ? parseTimestamptz : pg.types.getTypeParser(oid, format as "text"),
};
