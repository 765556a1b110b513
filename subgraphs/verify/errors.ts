/**
 * The verify subgraph's error codes (document 1). Messages are fixed per code: they never carry the token, the
 * nonce, the evidence or any identifier.
 */
import { DomainError } from "../shared/errors.js";

const error = (code: string, message: string) => (extras?: { retryAfter?: number }) =>
  new DomainError(code, message, extras);

export const VerifyErrors = {
  invalidRequest: error("INVALID_REQUEST", "The request is not valid."),
  authRequired: error("ONBOARDING_AUTH_REQUIRED", "A valid onboarding token is required."),
  machineNotFound: error("MACHINE_NOT_FOUND", "No such machine in the machine registry."),
  machineDeactivated: error("MACHINE_DEACTIVATED", "The machine is administratively deactivated."),
  rateLimited: error("RATE_LIMITED", "Too many open challenges; retry later."),
  chainUnavailable: error("CHAIN_UNAVAILABLE", "The machine context could not be read from the chain."),
  storeUnavailable: error("VERIFY_STORE_UNAVAILABLE", "The verification store is unavailable; retry."),
  clockInvalid: error("VERIFY_CLOCK_INVALID", "The server clock is invalid."),
  evidenceRejected: error("EVIDENCE_REJECTED", "The evidence failed a check; start over with a new challenge."),
  challengeNotFound: error("CHALLENGE_NOT_FOUND", "No challenge for this evidence."),
  challengeExpired: error("CHALLENGE_EXPIRED", "The challenge expired before it was consumed."),
  nonceReplay: error("NONCE_REPLAY", "A different submission is already recorded for this challenge."),
  submissionInProgress: error("SUBMISSION_IN_PROGRESS", "The same evidence is being checked; retry later."),
} as const;
