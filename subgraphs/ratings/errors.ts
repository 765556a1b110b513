/**
 * The ratings subgraph's error codes (document 2). The REST shim's tables (rest-shim/errors/ratings.ts, faucet.ts)
 * own the HTTP status and the exact `detail` text of each; messages here are fixed and name no identifier.
 */
import { DomainError } from "../shared/errors.js";

const error = (code: string, message: string) => () => new DomainError(code, message);

export const RatingsErrors = {
  emptyDid: error("EMPTY_DID", "Empty DID"),
  invalidAddress: error("INVALID_ADDRESS", "Invalid Ethereum address format"),
  invalidMachineDid: error("INVALID_MACHINE_DID", "Invalid machine DID format"),
  invalidRequest: error("INVALID_REQUEST", "The request is not valid."),
  invalidPagination: error("INVALID_PAGINATION", "offset must be 0 or more and limit 1 to 20."),
  machineNotFound: error("MACHINE_NOT_FOUND", "Machine not found"),
  machineNotRegistered: error("MACHINE_NOT_REGISTERED", "Machine not registered"),
  machineWalletNotFound: error("MACHINE_WALLET_NOT_FOUND", "Machine wallet not found"),
  tokenNotFound: error("TOKEN_NOT_FOUND", "Token not found"),
  serviceNotInitialised: error("SERVICE_NOT_INITIALISED", "Service not initialised"),
  chainUnavailable: error("CHAIN_UNAVAILABLE", "Chain unavailable"),
  storeUnavailable: error("SERVICE_UNAVAILABLE", "The service is unavailable; retry."),
} as const;

/** The 2.0 operator index is behind the finalized block; the block numbers become the REST detail. */
export function operatorIndexSyncing(indexedBlock: number, finalizedBlock: number): DomainError {
  return new DomainError("OPERATOR_INDEX_SYNCING", "The operator index is catching up with the finalized block.", {
    indexedBlock,
    finalizedBlock,
  });
}
