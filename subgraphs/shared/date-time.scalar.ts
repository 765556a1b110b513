/**
 * `DateTime`: one scalar for every instant in the supergraph. Values are RFC 3339 date-times checked by
 * graphql-scalars' `DateTime`; a valid string passes through exactly as the resolver wrote it (the REST shim's JSON
 * keeps today's spellings, with or without milliseconds), a `Date` serialises as `toISOString()`. Inputs arrive in
 * resolvers as the validated string, never as a `Date`.
 */
import { GraphQLScalarType, Kind, type ValueNode } from "graphql";
import { GraphQLDateTime } from "graphql-scalars";
import { fixedForm, startsInForm, twoDigits } from "./fixed-form.js";

/** `toISOString()`'s form. */
const FORM = fixedForm("0000-00-00T00:00:00.000Z");
const DAYS_IN_MONTH = [0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * `toISOString()`'s own form (`YYYY-MM-DDTHH:mm:ss.sssZ`), the one the services write, checked field by field: a
 * month 01-12, a day within its month (Gregorian leap years), hours 00-23, minutes and seconds 00-59. Such a string is
 * taken without graphql-scalars' slower checks; any other string (other offsets or precisions, a leap second) goes to
 * them. test/gateway/date-time-scalar.test.ts compares the two over random strings of this form.
 */
function isoInstant(value: string): boolean {
  if (value.length !== 24 || !startsInForm(value, FORM)) return false;
  const year = (value.charCodeAt(0) - 48) * 1000 + (value.charCodeAt(1) - 48) * 100 + twoDigits(value, 2);
  const month = twoDigits(value, 5);
  const day = twoDigits(value, 8);
  if (month < 1 || month > 12 || day < 1) return false;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  if (day > (month === 2 && leap ? 29 : DAYS_IN_MONTH[month]!)) return false;
  return twoDigits(value, 11) <= 23 && twoDigits(value, 14) <= 59 && twoDigits(value, 17) <= 59;
}

function checked(value: unknown): string {
  if (typeof value === "string" && isoInstant(value)) return value;
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) throw new TypeError("DateTime cannot represent an invalid Date");
    return value.toISOString();
  }
  if (typeof value !== "string") throw new TypeError("DateTime must be an RFC 3339 date-time string");
  GraphQLDateTime.parseValue(value);
  return value;
}

export const DateTimeScalar = new GraphQLScalarType({
  name: "DateTime",
  description: "An RFC 3339 date-time (ISO 8601, UTC offset required), for example `2026-11-26T21:00:00Z`.",
  specifiedByURL: "https://scalars.graphql.org/chillicream/date-time.html",
  serialize: checked,
  parseValue: checked,
  parseLiteral(node: ValueNode) {
    if (node.kind !== Kind.STRING) throw new TypeError("DateTime literals are strings");
    return checked(node.value);
  },
});
