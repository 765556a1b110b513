/**
 * Telling infrastructure failures (database down, connection lost, pool exhausted) from request outcomes that
 * callers handle themselves (unique violations P2002, missing rows P2025, write conflicts P2034, bugs in raw SQL).
 *
 * With driver adapters Prisma reports a failure in one of three shapes: a PrismaClientKnownRequestError whose
 * `meta.driverAdapterError.cause` says what the driver saw; a Prisma initialization/panic error; or the driver's own
 * error passed through untouched (pg's "Connection terminated unexpectedly", pool checkout timeouts, "PGlite is
 * closed"). All three are recognised here.
 */
import { StoreUnavailableError } from "../errors.js";
import { Prisma } from "./generated/client.js";

/** Prisma codes that mean the database could not serve the request at all. */
const STORE_FAILURE_CODES = new Set([
  "P1000", // authentication failed
  "P1001", // server not reachable
  "P1002", // server reached but timed out
  "P1003", // database does not exist
  "P1008", // operation timed out
  "P1010", // access denied
  "P1011", // TLS error
  "P1017", // server closed the connection
  "P2024", // timed out fetching a connection from the pool
  "P2028", // transaction API error: could not start in time, or expired while running
  "P2037", // too many connections
]);

/** Driver adapter error kinds with the same meaning (raw queries wrap them all as P2010). */
const STORE_FAILURE_KINDS = new Set([
  "AuthenticationFailed",
  "DatabaseNotReachable",
  "DatabaseDoesNotExist",
  "SocketTimeout",
  "DatabaseAccessDenied",
  "TlsConnectionError",
  "ConnectionClosed",
  "TooManyConnections",
]);

/**
 * SQLSTATE classes: connection exception, insufficient resources, operator intervention (shutdown), system error;
 * and 55000 as PostgreSQL sends it when a database refuses connections (`ALLOW_CONNECTIONS false`).
 */
const STORE_FAILURE_SQLSTATE = /^(08|53|57|58|55000$)/;

/** Socket-level codes Node puts on errors from `net`. */
const NETWORK_ERROR_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
]);

/** Messages of errors that pg, pg-pool and PGlite throw without a code. */
const DRIVER_FAILURE_MESSAGE =
  /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Cannot use a pool after calling end|PGlite is clos(ed|ing)/;

interface DriverAdapterCause {
  kind?: string;
  originalCode?: string;
  originalMessage?: string;
  constraint?: { index?: string };
}

export function isStoreFailure(error: unknown): boolean {
  if (error instanceof StoreUnavailableError) return true;
  if (error instanceof Prisma.PrismaClientInitializationError || error instanceof Prisma.PrismaClientRustPanicError) {
    return true;
  }
  if (error instanceof Prisma.PrismaClientKnownRequestError) {
    if (STORE_FAILURE_CODES.has(error.code)) return true;
    const cause = driverAdapterCause(error.meta?.driverAdapterError);
    return cause !== undefined && isStoreFailureCause(cause);
  }
  if (!(error instanceof Error)) return false;
  const cause = driverAdapterCause(error);
  if (cause !== undefined) return isStoreFailureCause(cause);
  const code = (error as NodeJS.ErrnoException).code;
  // pg's own DatabaseError (a statement run on the pool without Prisma: Database.statement) carries the SQLSTATE.
  if (code !== undefined && "severity" in error && STORE_FAILURE_SQLSTATE.test(code)) return true;
  return (code !== undefined && NETWORK_ERROR_CODES.has(code)) || DRIVER_FAILURE_MESSAGE.test(error.message);
}

/**
 * For `catch (error) { throw toStoreError(error); }`: infrastructure failures become `StoreUnavailableError` (with
 * the original as `cause`, for logs); everything else is returned unchanged for the caller's own handling.
 */
export function toStoreError(error: unknown): unknown {
  if (error instanceof StoreUnavailableError || !isStoreFailure(error)) return error;
  return new StoreUnavailableError(error);
}

/** A unique constraint rejected the write (P2002); `constraint` narrows it to one index, e.g. `verify_challenge_nonce_hash_key`. */
export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  const name = uniqueViolationConstraint(error);
  if (name === false) return false;
  return constraint === undefined || name === constraint;
}

/**
 * The violated unique index's name (undefined when the error does not say), or false for any other error. Prisma's
 * model queries report P2002; a raw query (P2010) and pg itself (a statement on the pool: Database.transaction) carry
 * SQLSTATE 23505.
 */
function uniqueViolationConstraint(error: unknown): string | undefined | false {
  if (error instanceof Prisma.PrismaClientKnownRequestError) {
    if (error.code === "P2002") return uniqueConstraintName(error);
    const cause = driverAdapterCause(error.meta?.driverAdapterError);
    if (cause?.originalCode !== "23505") return false;
    return cause.constraint?.index ?? cause.originalMessage?.match(/unique constraint "([^"]+)"/)?.[1];
  }
  if (error instanceof Error && "severity" in error && (error as { code?: unknown }).code === "23505") {
    return (error as { constraint?: string }).constraint;
  }
  return false;
}

/** adapter-pg names the index; the PGlite adapter only lists columns, but both keep PostgreSQL's message. */
function uniqueConstraintName(error: Prisma.PrismaClientKnownRequestError): string | undefined {
  const cause = driverAdapterCause(error.meta?.driverAdapterError);
  return cause?.constraint?.index ?? cause?.originalMessage?.match(/unique constraint "([^"]+)"/)?.[1];
}

function driverAdapterCause(value: unknown): DriverAdapterCause | undefined {
  if (!(value instanceof Error) || value.name !== "DriverAdapterError") return undefined;
  const cause = (value as Error & { cause?: unknown }).cause;
  return typeof cause === "object" && cause !== null ? (cause as DriverAdapterCause) : undefined;
}

function isStoreFailureCause(cause: DriverAdapterCause): boolean {
  return (
    (cause.kind !== undefined && STORE_FAILURE_KINDS.has(cause.kind)) ||
    (cause.originalCode !== undefined && STORE_FAILURE_SQLSTATE.test(cause.originalCode))
  );
}
