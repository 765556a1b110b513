/**
 * Document 1 (chip verification, /v1/verify/*): `{"detail":{"code":"...","message":"..."}}`.
 *
 * Every response of the family, success or error, is `application/json; charset=utf-8` and `no-store`. Callers
 * branch on `code`; the messages are fixed and name no token, nonce, evidence or identifier.
 */
import { defineErrorTable } from "./table.js";

export const VERIFY_ERRORS = defineErrorTable({
  family: "verify",
  headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" },
  envelope: (code, message) => ({ detail: { code, message } }),
  internalCode: "INTERNAL_ERROR",
  entries: {
    INVALID_REQUEST: { status: 400, message: "The request is not valid." },
    EVIDENCE_REJECTED: { status: 400, message: "The evidence failed a check; start over with a new challenge." },
    INVALID_MACHINE_ID: { status: 400, message: "The machine ID is not a canonical decimal string." },
    ONBOARDING_AUTH_REQUIRED: { status: 401, message: "A valid onboarding token is required." },
    MACHINE_NOT_FOUND: { status: 404, message: "No such machine." },
    CHALLENGE_NOT_FOUND: { status: 404, message: "No challenge for this evidence." },
    VERIFY_ROUTE_NOT_FOUND: { status: 404, message: "No such verify route." },
    METHOD_NOT_ALLOWED: { status: 405, message: "Method not allowed on this route." },
    NOT_ACCEPTABLE: { status: 406, message: "This route only answers application/json." },
    MACHINE_DEACTIVATED: { status: 409, message: "The machine is administratively deactivated." },
    CHALLENGE_EXPIRED: { status: 409, message: "The challenge expired before it was consumed." },
    NONCE_REPLAY: { status: 409, message: "A different submission is already recorded for this challenge." },
    SUBMISSION_IN_PROGRESS: {
      status: 409,
      message: "The same evidence is being checked; retry later.",
      retryAfter: { min: 1, max: 120 },
    },
    REQUEST_TOO_LARGE: { status: 413, message: "The request body is too large." },
    RATE_LIMITED: { status: 429, message: "Too many requests; retry later." },
    INTERNAL_ERROR: { status: 500, message: "Internal server error." },
    CHAIN_UNAVAILABLE: { status: 503, message: "The chain could not be read; retry." },
    VERIFY_STORE_UNAVAILABLE: { status: 503, message: "The verification store is unavailable; retry." },
    VERIFY_CLOCK_INVALID: { status: 503, message: "The server clock is invalid." },
    VERIFY_READ_UNAVAILABLE: { status: 503, message: "The verification record is unavailable." },
  },
});
