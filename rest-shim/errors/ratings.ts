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

/**
 * Read routes: the public notes' detail strings where they give one (`Empty DID`, `Machine not found`, ...), Starlette's
 * reason phrases for framework answers, and our own for what the notes leave open (docs/ratings-api.md).
 */
export const RATINGS_ERRORS = defineErrorTable({
  family: "ratings",
  headers,
  envelope: (_code, message) => ({ detail: message }),
  internalCode: "INTERNAL_ERROR",
  entries: {
    INVALID_REQUEST: { status: 400, message: "Invalid request" },
    EMPTY_DID: { status: 400, message: "Empty DID" },
    INVALID_ADDRESS: { status: 400, message: "Invalid Ethereum address format" },
    INVALID_MACHINE_DID: { status: 400, message: "Invalid machine DID format" },
    INVALID_ALTCHAIN_ADDRESS: { status: 400, message: "Invalid altchain address" },
    INVALID_PAGINATION: { status: 400, message: "Invalid pagination" },
    MACHINE_NOT_FOUND: { status: 404, message: "Machine not found" },
    MACHINE_NOT_REGISTERED: { status: 404, message: "Machine not registered" },
    MACHINE_WALLET_NOT_FOUND: { status: 404, message: "Machine wallet not found" },
    TOKEN_NOT_FOUND: { status: 404, message: "Token not found" },
    ALTCHAIN_NOT_BOUND: { status: 404, message: "Altchain address not bound" },
    ALTCHAIN_BINDING_REVOKED: { status: 404, message: "Altchain binding revoked" },
    NOT_FOUND: { status: 404, message: "Not Found" },
    METHOD_NOT_ALLOWED: { status: 405, message: "Method Not Allowed" },
    RATE_LIMITED: { status: 429, message: "Rate limit exceeded" },
    INTERNAL_ERROR: { status: 500, message: "Internal Server Error" },
    SERVICE_NOT_INITIALISED: { status: 503, message: "Service not initialised" },
    CHAIN_UNAVAILABLE: { status: 503, message: "Chain unavailable" },
    ALTCHAIN_UNAVAILABLE: { status: 503, message: "Altchain unavailable" },
    OPERATOR_INDEX_SYNCING: {
      status: 503,
      message: "Operator index syncing",
      messageFrom: ({ indexedBlock, finalizedBlock }) =>
        Number.isSafeInteger(indexedBlock) && Number.isSafeInteger(finalizedBlock)
          ? `Operator index syncing: synced to block ${indexedBlock as number} of finalized block ${finalizedBlock as number}`
          : undefined,
    },
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
    INVALID_SIGNATURE: { status: 400, message: "The signature does not recover to an address." },
    UNAUTHORIZED_SIGNER: { status: 403, message: "The signer may not decide for this machine." },
    MACHINE_NOT_FOUND: { status: 404, message: "Machine not found." },
    NOT_FOUND: { status: 404, message: "Not Found" },
    // Statuses the spec leaves open (docs/monetization.md): conflicts with the machine's or the applied state are 409.
    MACHINE_DEACTIVATED: { status: 409, message: "The machine is deactivated." },
    MACHINE_NOT_ACTIVATED: { status: 409, message: "The machine is not activated." },
    MACHINE_NOT_BONDED: { status: 409, message: "The machine is not bonded." },
    STALE_SIGNATURE: { status: 409, message: "The signed timestamp is stale or outside the freshness window." },
    REQUEST_TOO_LARGE: { status: 413, message: "The request body is too large." },
    INTERNAL_ERROR: { status: 500, message: "Internal server error." },
    MACHINE_UNAVAILABLE: { status: 503, message: "The machine state is unavailable; retry." },
    SERVICE_UNAVAILABLE: { status: 503, message: "The service is unavailable." },
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
