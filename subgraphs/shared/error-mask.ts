/**
 * The one rule for what an error may tell a GraphQL client, applied wherever errors leave a process or a subgraph:
 * the gateway's and every subgraph role's Apollo Server (`formatError`) and the in-process subgraph data source.
 *
 * Kept as they are:
 * - `DomainError`s: fixed messages per code, written for clients (subgraphs/shared/errors.ts);
 * - errors about the request itself, raised before execution (no `path`): syntax, validation, cost limits, variable
 *   coercion, per-IP limits; their messages describe the client's own document;
 * - errors a subgraph answered (`extensions.serviceName`, added by the gateway): they passed this rule in the subgraph.
 * Everything else (a driver's message with host and port, a stack, a source path, a fetch failure naming an internal
 * URL) becomes `Internal server error.` with code INTERNAL_SERVER_ERROR; the caller may log the original.
 */
import type { GraphQLFormattedError } from "graphql";
import { DomainError } from "./errors.js";

/** Codes Apollo Server, graphql-js, graphql-armor and the per-IP limits give errors about the client's request. */
const REQUEST_ERROR_CODES = new Set([
  "GRAPHQL_PARSE_FAILED",
  "GRAPHQL_VALIDATION_FAILED",
  "BAD_USER_INPUT",
  "BAD_REQUEST",
  "OPERATION_RESOLUTION_FAILURE",
  "PERSISTED_QUERY_NOT_FOUND",
  "PERSISTED_QUERY_NOT_SUPPORTED",
  "RATE_LIMITED",
]);

export const INTERNAL_ERROR_CODE = "INTERNAL_SERVER_ERROR";

/** True when `error` or an error it wraps (resolver wrapping, gateway wrapping) is a DomainError. */
function isDomainError(error: unknown): boolean {
  for (let current = error, depth = 0; current instanceof Error && depth < 5; depth++) {
    if (current instanceof DomainError) return true;
    current = (current as { originalError?: unknown }).originalError;
  }
  return false;
}

/** Whether the client may see this error as it is. */
export function isClientSafe(formatted: GraphQLFormattedError, error: unknown): boolean {
  if (isDomainError(error)) return true;
  const code = formatted.extensions?.code;
  if (formatted.path === undefined && typeof code === "string" && REQUEST_ERROR_CODES.has(code)) return true;
  return typeof formatted.extensions?.serviceName === "string";
}

/**
 * Client-safe errors without internal extensions, everything else masked; `report` hears of each masked error (the
 * process log, by the caller's rules). Use as Apollo Server's `formatError`: `(f, e) => maskError(f, e, report)`.
 */
export function maskError(
  formatted: GraphQLFormattedError,
  error: unknown,
  report: (error: unknown) => void = () => {},
): GraphQLFormattedError {
  if (isClientSafe(formatted, error)) {
    const { serviceName: _service, stacktrace: _stack, exception: _exception, ...extensions } = formatted.extensions ?? {};
    return { ...formatted, extensions };
  }
  report(error);
  return {
    message: "Internal server error.",
    ...(formatted.locations ? { locations: formatted.locations } : {}),
    ...(formatted.path ? { path: formatted.path } : {}),
    extensions: { code: INTERNAL_ERROR_CODE },
  };
}
