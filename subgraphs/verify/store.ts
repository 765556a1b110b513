/** The verify subgraph's store steps: an infrastructure failure is 503 VERIFY_STORE_UNAVAILABLE (retry the same request). */
import { inStore as inAnyStore } from "../shared/db/in-store.js";
import { VerifyErrors } from "./errors.js";

export function inStore<T>(step: () => Promise<T>, log?: (error: unknown) => void): Promise<T> {
  return inAnyStore(step, VerifyErrors.storeUnavailable, log);
}
