/**
 * Runs a database step and turns any infrastructure failure into 503 VERIFY_STORE_UNAVAILABLE. Domain errors pass.
 */
import { DomainError } from "../shared/errors.js";
import { VerifyErrors } from "./errors.js";

export async function inStore<T>(step: () => Promise<T>, log?: (error: unknown) => void): Promise<T> {
  try {
    return await step();
  } catch (error) {
    if (error instanceof DomainError) throw error;
    log?.(error);
    throw VerifyErrors.storeUnavailable();
  }
}
