/**
 * What a route entry is, the areas of the listeners' path spaces, and the helpers entries share. The entries
 * themselves are in `routes/<family>.ts`; `routes.ts` is the table of all of them.
 */
import type { IncomingHttpHeaders } from "node:http";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { RateLimitConfig } from "../subgraphs/shared/config.js";
import type { AnswerBasis } from "./answer-reuse.js";
import type { OperationResult, ShimOperation } from "./executor.js";
import type { ErrorTable, PreparedResponse } from "./errors/table.js";
import { MARKETS_ERRORS } from "./errors/markets.js";
import { RATINGS_ERRORS, ratingsRateLimited } from "./errors/ratings.js";
import { VERIFY_ERRORS } from "./errors/verify.js";
import type { Rejection, RequestRules } from "./http-rules.js";

/** `http`: documents 1 and 2 (the 1.0 ratings deployment); `mcr2`: document 2's 2.0 deployment; `markets`: document 3. */
export type ListenerName = "http" | "mcr2" | "markets";
export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
export type RateLimitName = Exclude<keyof RateLimitConfig, "windowMs">;

/**
 * A part of a listener's path space whose framework-level answers share one envelope: unknown path (404), known
 * path with another method (405) and per-IP limits (429). The longest matching prefix wins.
 */
export interface RouteArea {
  readonly listener: ListenerName;
  readonly prefix: string;
  readonly notFound: PreparedResponse;
  readonly methodNotAllowed: PreparedResponse;
  readonly rateLimited: (limit: number, windowMs: number) => PreparedResponse;
  /** A failure inside the framework (outside any route's own handling). */
  readonly internalError: PreparedResponse;
}

export const AREAS = {
  verify: {
    listener: "http",
    prefix: "/v1/verify/",
    notFound: VERIFY_ERRORS.required("VERIFY_ROUTE_NOT_FOUND"),
    methodNotAllowed: VERIFY_ERRORS.required("METHOD_NOT_ALLOWED"),
    rateLimited: () => VERIFY_ERRORS.required("RATE_LIMITED"),
    internalError: VERIFY_ERRORS.internal,
  },
  // Everything else on the HTTP listener is document 2, whose upstream answers framework errors FastAPI's way.
  ratings: {
    listener: "http",
    prefix: "/",
    notFound: RATINGS_ERRORS.required("NOT_FOUND"),
    methodNotAllowed: RATINGS_ERRORS.required("METHOD_NOT_ALLOWED"),
    rateLimited: ratingsRateLimited,
    internalError: RATINGS_ERRORS.internal,
  },
  // The 2.0 deployment's own listener (MCR2_PORT): document 2 only, with the same framework answers.
  ratingsV2: {
    listener: "mcr2",
    prefix: "/",
    notFound: RATINGS_ERRORS.required("NOT_FOUND"),
    methodNotAllowed: RATINGS_ERRORS.required("METHOD_NOT_ALLOWED"),
    rateLimited: ratingsRateLimited,
    internalError: RATINGS_ERRORS.internal,
  },
  // The markets listener serves document 3 only, so every path on it answers in the markets envelope.
  markets: {
    listener: "markets",
    prefix: "/",
    notFound: MARKETS_ERRORS.required("NOT_FOUND"),
    methodNotAllowed: MARKETS_ERRORS.required("METHOD_NOT_ALLOWED"),
    rateLimited: () => MARKETS_ERRORS.required("RATE_LIMITED"),
    internalError: MARKETS_ERRORS.internal,
  },
} as const satisfies Record<string, RouteArea>;

export interface RouteInput {
  /** Path parameters exactly as sent: not percent-decoded, so `%31` is not a spelling of `1`. */
  readonly params: Readonly<Record<string, string>>;
  /** The query string, percent-decoded (most routes ignore it; document 2's listings read `offset` and `limit`). */
  readonly query: URLSearchParams;
  /** The raw body of routes with a `jsonBody` rule; empty otherwise. */
  readonly body: Buffer;
  /** Request headers (lower-case names), for routes whose credentials travel in headers (document 3's heartbeat). */
  readonly headers: Readonly<IncomingHttpHeaders>;
}

/** Either a success body (serialised and encoded once, here) or a code of the route's error table. */
export type RouteOutcome = { readonly status: number; readonly body: Buffer } | { readonly errorCode: string };

export interface RouteDefinition {
  readonly method: HttpMethod;
  /** Path pattern; a `:name` segment is a parameter. No trailing-slash or case variants are served. */
  readonly path: string;
  readonly area: RouteArea;
  /** GraphQL `extensions.code` -> status and envelope for this route's answers (usually the area's family). */
  readonly errors: ErrorTable;
  readonly operation: ShimOperation;
  readonly rules: RequestRules;
  /** Codes of `errors` for each pre-body rejection the route's rules can produce. */
  readonly rejections?: Readonly<Record<Rejection, string>>;
  /** Per-IP limits counting this route (names of `config.rateLimits`). Probes have none. */
  readonly rateLimits: readonly RateLimitName[];
  /** Answered when GraphQL cannot be reached: a 503 of the family tells the client to retry. */
  readonly unavailableCode: string;
  /**
   * Answered instead of `unavailableCode` when GraphQL cannot be reached: for liveness, which document 2 defines as
   * "200 whenever the process runs; checks no connectivity" (a rest process must not look dead when its gateway is).
   */
  readonly whenUnavailable?: { readonly status: number; readonly body: Buffer };
  /** Answered when the path matches but a parameter cannot even be routed (bad %-escape, over 100 characters). */
  readonly invalidPathCode?: string;
  /**
   * The success answer is a function of the variables and this state only (no database row, no caller, no clock):
   * where the process can tell that state's version, the shim reuses the answer's bytes while it is current
   * (answer-reuse.ts). Declare it only for routes whose operation reads nothing else.
   */
  readonly reuseWhile?: AnswerBasis;
  /**
   * Sample GraphQL `data` for the OpenAPI document, where the operation answers a free-form JSONObject whose shape is
   * fixed by the service (the purchase view): the generator documents `respond` run on these instead of on samples
   * of the selection, which would only show an empty object.
   */
  readonly documentedResults?: readonly Record<string, unknown>[];
  /** Throws `RouteInputError` for requests the route refuses itself. */
  readonly variables: (input: RouteInput) => Record<string, unknown>;
  readonly respond: (data: Record<string, unknown>) => RouteOutcome;
  /**
   * A binary route (the stream chunk data routes, rest-shim/stream-data.ts): after the authorising operation
   * succeeded, `serve` answers the request itself (streaming bytes to or from storage) instead of `respond`, which
   * then only shapes the documented JSON answer. With an `octetBody` rule the body is left unread for `serve`.
   */
  readonly raw?: RawRoute;
  /**
   * The route's credential, checked before any value of the request: when building the variables refuses the
   * request, this operation runs first with the credential alone, and its error (a missing or bad credential) is
   * the answer; only a caller whose credential holds learns what was wrong with the rest.
   */
  readonly credentialCheck?: CredentialCheck;
}

export interface CredentialCheck {
  readonly operation: ShimOperation;
  /** The credential's variables (throws `RouteInputError` for a malformed one). */
  readonly variables: (input: RouteInput) => Record<string, unknown>;
}

export interface RawRouteContext {
  readonly request: FastifyRequest;
  readonly reply: FastifyReply;
  /** The authorising operation's data. */
  readonly data: Record<string, unknown>;
  readonly config: import("../subgraphs/shared/config.js").PlatformConfig;
  /** The variables the operation ran with (credentials included: never log them). */
  readonly variables: Record<string, unknown>;
  /** Runs another named operation with the request's client IP and ID. */
  readonly execute: (operation: ShimOperation, variables: Record<string, unknown>) => Promise<OperationResult>;
  /** Answers a code of the route's error table (closing the connection when a body is still unread). */
  readonly fail: (code: string) => FastifyReply;
  /** Answers the first GraphQL error of a result through the route's table. */
  readonly failWith: (result: OperationResult) => FastifyReply;
}

export interface RawRoute {
  readonly serve: (context: RawRouteContext) => Promise<unknown>;
  /** What the OpenAPI document says instead of the JSON answer: the success responses and the request body. */
  readonly docs: { readonly description: string; readonly responses: Record<string, unknown>; readonly requestBody?: unknown };
}

/** A selected root field that is missing means the operation and the schema disagree: a server bug, answered 500. */
class MissingDataError extends Error {
  constructor(field: string) {
    super(`GraphQL data has no ${field}`);
    this.name = "MissingDataError";
  }
}

/** The selected root field's value; a missing one is a server bug (500). */
export function fieldOf(data: Record<string, unknown>, field: string): any {
  const value = data[field];
  if (value === null || value === undefined) throw new MissingDataError(field);
  return value;
}

export function serializeField(data: Record<string, unknown>, field: string): Buffer {
  return Buffer.from(JSON.stringify(fieldOf(data, field)), "utf8");
}

export const ok = (status: number, field: string) => (data: Record<string, unknown>): RouteOutcome => ({
  status,
  body: serializeField(data, field),
});

export const noVariables = () => ({});
