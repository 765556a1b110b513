/**
 * One error table per API family: GraphQL `extensions.code` -> HTTP status and the family's envelope.
 *
 * Every response body is serialised once, when the table is defined, so answering an error costs a map lookup. The
 * table owns the message text of every code: messages coming from GraphQL are never copied into a response, because
 * they are not part of the contract and could carry internals.
 */
import type { GraphQLErrorShape } from "../executor.js";

/**
 * A response ready to be written: the body is already serialised and encoded. A Buffer body also keeps Fastify from
 * rewriting the Content-Type (it appends `; charset=utf-8` to JSON types sent as strings).
 */
export interface PreparedResponse {
  readonly status: number;
  /** The family code of an error response (for the one-line error report; bodies of some families omit it). */
  readonly code?: string;
  readonly body: Buffer;
  readonly headers: Readonly<Record<string, string>>;
}

export interface ErrorEntry {
  readonly status: number;
  readonly message: string;
  /** Answer `Retry-After` from `extensions.retryAfter`, clamped to this range (seconds). */
  readonly retryAfter?: { readonly min: number; readonly max: number };
  /**
   * A message built from the error's extensions (document 2's sync position); undefined (a malformed hint) keeps
   * `message`. It must only ever format numbers: nothing a client sent may reach it.
   */
  readonly messageFrom?: (extensions: Readonly<Record<string, unknown>>) => string | undefined;
  /** The envelope's `details` from the error's extensions (document 3's orderIds); undefined gives none. */
  readonly detailsFrom?: (extensions: Readonly<Record<string, unknown>>) => unknown;
}

export interface ErrorTableSpec {
  readonly family: string;
  /** Headers of every response of the family, success or error (lower-case names). */
  readonly headers: Readonly<Record<string, string>>;
  readonly envelope: (code: string, message: string, details?: unknown) => unknown;
  readonly entries: Readonly<Record<string, ErrorEntry>>;
  /** Code answered for unknown codes, GraphQL errors without a code and failures inside the shim. */
  readonly internalCode: string;
}

export interface ErrorTable {
  readonly family: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly internal: PreparedResponse;
  /** Every code of the table (the OpenAPI generator documents each one's status and envelope). */
  readonly codes: readonly string[];
  /** The prepared response of a code; unknown codes give `internal`. */
  response(code: string): PreparedResponse;
  /** The prepared response of a code the table must have (checked when routes are built, not per request). */
  required(code: string): PreparedResponse;
  /** A code's status and envelope with a message fixed at startup from configuration (ratings' 429 text). */
  withMessage(code: string, message: string): PreparedResponse;
  /** The response for one GraphQL error: its code, or internal when it has none or an unknown one. */
  forGraphQLError(error: GraphQLErrorShape): PreparedResponse;
}

function prepareErrorResponse(
  code: string,
  status: number,
  headers: Readonly<Record<string, string>>,
  envelope: unknown,
): PreparedResponse {
  return Object.freeze({ status, code, body: Buffer.from(JSON.stringify(envelope), "utf8"), headers });
}

export function defineErrorTable(spec: ErrorTableSpec): ErrorTable {
  const prepared = new Map<string, PreparedResponse>();
  for (const [code, entry] of Object.entries(spec.entries)) {
    prepared.set(code, prepareErrorResponse(code, entry.status, spec.headers, spec.envelope(code, entry.message)));
  }
  const required = (code: string): PreparedResponse => {
    const response = prepared.get(code);
    if (!response) throw new Error(`${spec.family} error table has no entry for ${code}`);
    return response;
  };
  const internal = required(spec.internalCode);
  const response = (code: string) => prepared.get(code) ?? internal;

  return {
    family: spec.family,
    headers: spec.headers,
    internal,
    codes: Object.freeze(Object.keys(spec.entries)),
    response,
    required,
    withMessage(code, message) {
      return prepareErrorResponse(code, required(code).status, spec.headers, spec.envelope(code, message));
    },
    forGraphQLError(error) {
      const code = error.extensions?.code;
      if (typeof code !== "string") return internal;
      const base = response(code);
      if (base === internal) return base;
      const entry = spec.entries[code]!;
      const details = entry.detailsFrom?.(error.extensions ?? {});
      if (details !== undefined) return prepareErrorResponse(code, base.status, spec.headers, spec.envelope(code, entry.message, details));
      const message = entry.messageFrom?.(error.extensions ?? {});
      if (message !== undefined) return prepareErrorResponse(code, base.status, spec.headers, spec.envelope(code, message));
      const retryAfter = entry.retryAfter;
      if (retryAfter === undefined) return base;
      const seconds = clampSeconds(error.extensions?.retryAfter, retryAfter.min, retryAfter.max);
      return { ...base, headers: { ...base.headers, "retry-after": String(seconds) } };
    },
  };
}

/** A missing or non-numeric hint gives the lower bound: the earliest retry the family documents. */
function clampSeconds(value: unknown, min: number, max: number): number {
  if (typeof value !== "number" || !Number.isFinite(value)) return min;
  return Math.min(max, Math.max(min, Math.ceil(value)));
}
