/**
 * Runs a database step and turns an infrastructure failure (connection lost, pool or transaction timeout, closed
 * database) into 503 VERIFY_STORE_UNAVAILABLE, which tells the client to retry the same request. Domain errors pass;
 * anything else is a bug and surfaces as 500 INTERNAL_ERROR.
 */
import { DomainError } from "../shared/errors.js";
import { isStoreFailure } from "../shared/db/index.js";
import { VerifyErrors } from "./errors.js";

export async function inStore<T>(step: () => Promise<T>, log?: (error: unknown) => void): Promise<T> {
  try {
    return await step();
  } catch (error) {
    if (error instanceof DomainError || !isStoreFailure(error)) throw error;
    log?.(error);
    throw VerifyErrors.storeUnavailable();
  }
}
