/** The markets subgraph's error codes (document 3); messages are fixed per code. */
import { DomainError } from "../shared/errors.js";

export const MarketsErrors = {
  storeUnavailable: () => new DomainError("SERVICE_UNAVAILABLE", "The service is unavailable; retry."),
} as const;
