/**
 * Typed domain errors. Subgraphs never set HTTP statuses: they throw a `DomainError` whose `code` becomes the GraphQL
 * `extensions.code`; the REST shim owns the code -> status/envelope table per API family.
 *
 * Messages are fixed per code and never contain tokens, nonces, evidence or identifiers.
 */
import { GraphQLError } from "graphql";

export interface DomainErrorExtras {
  /** Seconds the client should wait before retrying (becomes `Retry-After` on REST). */
  retryAfter?: number;
  /** Document 2, 2.0 operator route: how far the ownership index has synced, and the finalized block it chases. */
  indexedBlock?: number;
  finalizedBlock?: number;
  /** Document 3, OPEN_MARKET_ORDERS: the open orders that block revoking a pairing (server IDs only). */
  orderIds?: string[];
}

export class DomainError extends GraphQLError {
  readonly code: string;
  constructor(code: string, message: string, extras: DomainErrorExtras = {}) {
    super(message, { extensions: { code, ...extras } });
    this.code = code;
  }
}

/** The chain could not be read within the request deadline (RPC down, timeout, bad answer). */
export class ChainUnavailableError extends Error {
  constructor(cause?: unknown) {
    super("chain unavailable", { cause });
  }
}

/** The database could not be reached or a transaction failed for infrastructure reasons. */
export class StoreUnavailableError extends Error {
  constructor(cause?: unknown) {
    super("store unavailable", { cause });
  }
}
