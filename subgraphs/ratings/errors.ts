/** The ratings subgraph's error codes (document 2); messages are fixed per code. */
import { DomainError } from "../shared/errors.js";

export const RatingsErrors = {
  invalidMachineKey: () => new DomainError("INVALID_REQUEST", "The machine key is not a canonical machine ID."),
  storeUnavailable: () => new DomainError("SERVICE_UNAVAILABLE", "The service is unavailable; retry."),
} as const;
