/**
 * Document 2 (credit-rating read API and monetization toggle). The upstream server is FastAPI, so its envelopes are
 * FastAPI's: read routes and every framework-level answer (404, 405, 429) carry `{"detail":"<text>"}`; the two
 * monetization routes carry `{"detail":{"code":"...","message":"..."}}`. Both tables share the code -> status mapping
 * where a code appears in both.
 *
 * Codes are added here together with the routes that produce them.
 */
import { defineErrorTable, type PreparedResponse } from "./table.js";

const headers = { "content-type": "application/json" };

/** Read routes: the detail strings are Starlette's standard reason phrases where the upstream uses them. */
export const RATINGS_ERRORS = defineErrorTable({
  family: "ratings",
  headers,
  envelope: (_code, message) => ({ detail: message }),
  internalCode: "INTERNAL_ERROR",
  entries: {
    INVALID_REQUEST: { status: 400, message: "Invalid request" },
    NOT_FOUND: { status: 404, message: "Not Found" },
    METHOD_NOT_ALLOWED: { status: 405, message: "Method Not Allowed" },
    RATE_LIMITED: { status: 429, message: "Rate limit exceeded" },
    INTERNAL_ERROR: { status: 500, message: "Internal Server Error" },
    CHAIN_UNAVAILABLE: { status: 503, message: "Chain unavailable" },
    SERVICE_UNAVAILABLE: { status: 503, message: "Service Unavailable" },
  },
});

/** `GET|PUT /machine/{key}/monetization`: callers branch on `code`. */
export const MONETIZATION_ERRORS = defineErrorTable({
  family: "monetization",
  headers,
  envelope: (code, message) => ({ detail: { code, message } }),
  internalCode: "INTERNAL_ERROR",
  entries: {
    INVALID_REQUEST: { status: 400, message: "The request is not valid." },
    // Status not given by the spec: a decision that is not strictly newer conflicts with the applied one.
    STALE_SIGNATURE: { status: 409, message: "The signed timestamp is stale or outside the freshness window." },
    INTERNAL_ERROR: { status: 500, message: "Internal server error." },
    CHAIN_UNAVAILABLE: { status: 503, message: "The chain could not be read; retry." },
    SERVICE_UNAVAILABLE: { status: 503, message: "The service is unavailable; retry." },
  },
});

/** slowapi's 429 text, whose window spelling comes from the `limits` library: `90 per 1 minute`. */
export function ratingsRateLimited(limit: number, windowMs: number): PreparedResponse {
  return RATINGS_ERRORS.withMessage("RATE_LIMITED", `Rate limit exceeded: ${limit} per ${describeWindow(windowMs)}`);
}

const UNITS: ReadonlyArray<readonly [string, number]> = [
  ["day", 86_400_000],
  ["hour", 3_600_000],
  ["minute", 60_000],
  ["second", 1_000],
];

/** `limits` prints `<multiples> <granularity>` without a plural: `1 minute`, `2 minute`. */
function describeWindow(windowMs: number): string {
  for (const [unit, ms] of UNITS) {
    if (windowMs % ms === 0) return `${windowMs / ms} ${unit}`;
  }
  return `${windowMs} millisecond`;
}
