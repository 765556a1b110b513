/**
 * The time-range filter of the listing reads (`GET /stream/listings`) and of the catalogue's listing entries
 * (`GET /market/services`): optional `from` / `to` ISO 8601 instants; a row matches when its [timeStart, timeEnd]
 * overlaps [from, to]. A malformed instant, or `from` after `to`, is VALIDATION_ERROR.
 */
import { MarketsErrors } from "./errors.js";

export const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;

/** The instant an ISO 8601 string names, or null when it is not one. */
export function instantOf(value: unknown): Date | null {
  if (typeof value !== "string" || !ISO_INSTANT.test(value)) return null;
  const date = new Date(value);
  return Number.isFinite(date.getTime()) ? date : null;
}

export interface TimeRange {
  from: Date | null;
  to: Date | null;
}

/** The parsed filter; VALIDATION_ERROR for a bad instant or an inverted range. */
export function timeRangeOf(from: string | null | undefined, to: string | null | undefined): TimeRange {
  const range = { from: from == null ? null : instantOf(from), to: to == null ? null : instantOf(to) };
  if ((from != null && range.from === null) || (to != null && range.to === null)) throw MarketsErrors.validation();
  if (range.from !== null && range.to !== null && range.from.getTime() > range.to.getTime()) throw MarketsErrors.validation();
  return range;
}

export const timeRangeSet = (range: TimeRange): boolean => range.from !== null || range.to !== null;

/** Whether [start, end] overlaps the filter; a row without a time range never matches a set filter. */
export function overlaps(range: TimeRange, start: Date | null, end: Date | null): boolean {
  if (range.from !== null && (end === null || end.getTime() < range.from.getTime())) return false;
  if (range.to !== null && (start === null || start.getTime() > range.to.getTime())) return false;
  return true;
}
