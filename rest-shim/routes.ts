/**
 * The REST contract as data: one entry per documented route, each bound to exactly one named GraphQL operation.
 *
 * An entry says where the route lives (listener, area), which HTTP rules run before its body is read, which per-IP
 * limits count it, how its GraphQL variables come from the request and how `data` becomes the response. Adding a
 * route is adding an entry; server.ts compiles the table once at startup.
 */
import type { RateLimitConfig } from "../subgraphs/shared/config.js";
import type { ShimOperation } from "./executor.js";
import type { ErrorTable, PreparedResponse } from "./errors/table.js";
import { MARKETS_ERRORS } from "./errors/markets.js";
import { RATINGS_ERRORS, ratingsRateLimited } from "./errors/ratings.js";
import { VERIFY_ERRORS } from "./errors/verify.js";
import type { Rejection, RequestRules } from "./http-rules.js";
import { closedStringObject, utf8Text } from "./json-body.js";
import { OPERATIONS } from "./operations.js";

export type ListenerName = "http" | "markets";
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
  /** The raw body of routes with a `jsonBody` rule; empty otherwise. */
  readonly body: Buffer;
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
  /** Throws `RouteInputError` for requests the route refuses itself. */
  readonly variables: (input: RouteInput) => Record<string, unknown>;
  readonly respond: (data: Record<string, unknown>) => RouteOutcome;
}

/** A selected root field that is missing means the operation and the schema disagree: a server bug, answered 500. */
class MissingDataError extends Error {
  constructor(field: string) {
    super(`GraphQL data has no ${field}`);
    this.name = "MissingDataError";
  }
}

function serializeField(data: Record<string, unknown>, field: string): Buffer {
  const value = data[field];
  if (value === null || value === undefined) throw new MissingDataError(field);
  return Buffer.from(JSON.stringify(value), "utf8");
}

const ok = (status: number, field: string) => (data: Record<string, unknown>): RouteOutcome => ({
  status,
  body: serializeField(data, field),
});

const noVariables = () => ({});

const VERIFY_REJECTIONS = {
  unauthorized: "ONBOARDING_AUTH_REQUIRED",
  badHeaders: "INVALID_REQUEST",
  notAcceptable: "NOT_ACCEPTABLE",
  tooLarge: "REQUEST_TOO_LARGE",
} as const satisfies Record<Rejection, string>;

/** Document 1: the read route's body may not exceed this; a larger record is answered as unavailable. */
const VERIFY_READ_MAX_BYTES = 4096;

export const ROUTES: readonly RouteDefinition[] = [
  {
    method: "GET",
    path: "/health",
    area: AREAS.ratings,
    errors: RATINGS_ERRORS,
    operation: OPERATIONS.health,
    rules: {},
    rateLimits: [],
    unavailableCode: "SERVICE_UNAVAILABLE",
    whenUnavailable: { status: 200, body: Buffer.from('{"status":"ok"}') },
    variables: noVariables,
    respond: ok(200, "health"),
  },
  {
    method: "GET",
    path: "/ready",
    area: AREAS.ratings,
    errors: RATINGS_ERRORS,
    operation: OPERATIONS.readiness,
    rules: {},
    rateLimits: [],
    unavailableCode: "SERVICE_UNAVAILABLE",
    variables: noVariables,
    respond(data) {
      const body = serializeField(data, "readiness");
      const status = (data.readiness as { status?: unknown }).status;
      if (status === "ready") return { status: 200, body };
      if (status === "not_ready") return { status: 503, body };
      return { errorCode: "INTERNAL_ERROR" };
    },
  },
  {
    method: "GET",
    path: "/v1/verify/machines/:machineId",
    area: AREAS.verify,
    errors: VERIFY_ERRORS,
    operation: OPERATIONS.verifyMachine,
    rules: { acceptJson: true },
    rejections: VERIFY_REJECTIONS,
    rateLimits: ["verifyApiPerIp", "verifyReadPerIp"],
    unavailableCode: "VERIFY_READ_UNAVAILABLE",
    invalidPathCode: "INVALID_MACHINE_ID",
    variables: ({ params }) => ({ machineId: params.machineId }),
    respond(data) {
      const body = serializeField(data, "machineVerification");
      if (body.length > VERIFY_READ_MAX_BYTES) return { errorCode: "VERIFY_READ_UNAVAILABLE" };
      return { status: 200, body };
    },
  },
  {
    method: "POST",
    path: "/v1/verify/chip/challenge",
    area: AREAS.verify,
    errors: VERIFY_ERRORS,
    operation: OPERATIONS.createChipChallenge,
    rules: { onboardingToken: true, acceptJson: true, jsonBody: { limit: 1024 } },
    rejections: VERIFY_REJECTIONS,
    rateLimits: ["verifyApiPerIp", "challengePerIp"],
    unavailableCode: "VERIFY_STORE_UNAVAILABLE",
    // Shape only; the machine-ID format is the verify subgraph's rule (it answers INVALID_REQUEST on this route).
    variables: ({ body }) => ({ machineId: closedStringObject(body, ["machineId"], "INVALID_REQUEST").machineId }),
    respond: ok(201, "createChipChallenge"),
  },
  {
    method: "POST",
    path: "/v1/verify/chip/evidence",
    area: AREAS.verify,
    errors: VERIFY_ERRORS,
    operation: OPERATIONS.submitChipEvidence,
    rules: { onboardingToken: true, acceptJson: true, jsonBody: { limit: 16_384 } },
    rejections: VERIFY_REJECTIONS,
    rateLimits: ["verifyApiPerIp", "evidencePerIp"],
    unavailableCode: "VERIFY_STORE_UNAVAILABLE",
    // The exact bytes as text: the subgraph checks that they are the canonical form of the evidence.
    variables: ({ body }) => ({ evidence: utf8Text(body, "INVALID_REQUEST") }),
    respond: ok(202, "submitChipEvidence"),
  },
];
