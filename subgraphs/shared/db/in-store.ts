/**
 * Runs a database step and turns an infrastructure failure (connection lost, pool or transaction timeout, closed
 * database) into the subgraph's "store unavailable" DomainError, which tells the client to retry; the original goes
 * to `log` only. Domain errors pass; anything else is a bug and reaches the error mask as an internal error.
 */
import { DomainError } from "../errors.js";
import { isStoreFailure } from "./store-errors.js";

export async function inStore<T>(step: () => Promise<T>, unavailable: () => DomainError, log?: (error: unknown) => void): Promise<T> {
  try {
    return await step();
  } catch (error) {
    if (error instanceof DomainError || !isStoreFailure(error)) throw error;
    log?.(error);
    throw unavailable();
  }
}
