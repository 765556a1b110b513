/**
 * Turning a raw request body into what a route's GraphQL variables need. Failures throw `RouteInputError` with the
 * route's code; no parser message ever reaches a response.
 */
import { isUtf8 } from "node:buffer";
import { parseJsonStrict } from "../subgraphs/shared/json/strict.js";
import type { PreparedResponse } from "./errors/table.js";

/**
 * A request the route itself refuses before calling GraphQL; `code` is one of the route's family codes, or the
 * refusal carries its own prepared `response` (FastAPI's 422 validation lists, which echo the offending input).
 */
export class RouteInputError extends Error {
  constructor(
    readonly code: string,
    readonly response?: PreparedResponse,
  ) {
    super(code);
    this.name = "RouteInputError";
  }
}

/** The body as text, refusing bytes that are not valid UTF-8 (no replacement characters are ever invented). */
export function utf8Text(body: Buffer, code: string): string {
  if (!isUtf8(body)) throw new RouteInputError(code);
  return body.toString("utf8");
}

/**
 * A closed JSON object whose members are exactly `names`, each a string: duplicate keys, extra or missing members,
 * non-string values and non-object documents are refused with `code`.
 */
export function closedStringObject<Name extends string>(
  body: Buffer,
  names: readonly Name[],
  code: string,
): Record<Name, string> {
  let value: unknown;
  try {
    value = parseJsonStrict(utf8Text(body, code));
  } catch {
    throw new RouteInputError(code);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new RouteInputError(code);
  const members = Object.keys(value);
  if (members.length !== names.length) throw new RouteInputError(code);
  const record = value as Record<string, unknown>;
  for (const name of names) {
    if (!Object.hasOwn(record, name) || typeof record[name] !== "string") throw new RouteInputError(code);
  }
  return record as Record<Name, string>;
}
