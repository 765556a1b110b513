/**
 * One route entry compiled into the two Fastify steps that serve it:
 *
 * - `onRequest` (before Fastify reads a byte of the body): the route's HTTP rules, then its per-IP limits.
 * - `handler`: the body's size verdict, GraphQL variables, the one named operation, and `data` or the first error
 *   turned into the response through the route's table.
 *
 * Everything per route (rule checks, limits, parameter positions, error responses) is resolved here, once.
 */
import type { FastifyReply, FastifyRequest, RouteOptions } from "fastify";
import type { PlatformConfig } from "../subgraphs/shared/config.js";
import { closeAfterAnswer } from "../subgraphs/shared/http/listener.js";
import { AnswerStore, type AnswerVersions } from "./answer-reuse.js";
import { BODY_TOO_LARGE, type ReadBody } from "./body.js";
import type { PreparedResponse } from "./errors/table.js";
import { restSpellingInPlace } from "./routes/enum-spelling.js";
import { ExecutorUnavailableError, type GraphQLExecutor, type OperationResult } from "./executor.js";
import { announcesBody, compileRequestCheck, hasRequestRules, type Rejection } from "./http-rules.js";
import { RouteInputError } from "./json-body.js";
import type { OnboardingTokenCheck } from "./onboarding-auth.js";
import { compilePathPattern, rawPathOf } from "./path-pattern.js";
import { NOT_COUNTED, type RateLimiter, type RateLimitRule } from "./rate-limit.js";
import type { CredentialCheck, RouteDefinition, RouteInput, RouteOutcome } from "./route-definition.js";

export interface RouteDependencies {
  readonly config: PlatformConfig;
  readonly executor: GraphQLExecutor;
  readonly rateLimiter: RateLimiter;
  readonly onboardingToken: OnboardingTokenCheck;
  /** Reports a 5xx answer once, by code only (never a message: it could carry request data). */
  readonly reportServerError: (family: string, code: string) => void;
  /** Version sources of the states routes may declare their answers a function of (role `all` only). */
  readonly answerVersions?: AnswerVersions;
}

const EMPTY_BODY = Buffer.alloc(0);

export function send(reply: FastifyReply, response: PreparedResponse): FastifyReply {
  return reply.code(response.status).headers(response.headers).send(response.body);
}

/** Answers before the body was read; a body the client is still sending must not be parsed as the next request. */
export function sendEarly(request: FastifyRequest, reply: FastifyReply, response: PreparedResponse): FastifyReply {
  if (announcesBody(request.raw)) closeAfterAnswer(reply);
  return send(reply, response);
}

export function compileRoute(route: RouteDefinition, deps: RouteDependencies): RouteOptions {
  const { errors } = route;
  const check = compileRequestCheck(route.rules, deps.onboardingToken);
  const rejectionResponses = resolveRejections(route);
  const limits: RateLimitRule[] = route.rateLimits.map((name) => {
    const limit = deps.config.rateLimits[name];
    return { name, limit, rejection: route.area.rateLimited(limit, deps.config.rateLimits.windowMs) };
  });
  const pattern = compilePathPattern(route.path);
  const forwardsAuthorization = route.rules.onboardingToken === true;
  const unavailable = errors.required(route.unavailableCode);

  const needsOnRequest = hasRequestRules(route.rules) || limits.length > 0;
  const versionOf = route.reuseWhile === undefined ? undefined : deps.answerVersions?.[route.reuseWhile];
  const answers = versionOf === undefined ? undefined : new AnswerStore(versionOf);

  /** Sends a response; a 5xx is reported once, by `reportedCode` (the upstream code when it was unknown). */
  const rawBody = route.rules.octetBody !== undefined;
  const answer = (reply: FastifyReply, response: PreparedResponse, reportedCode = response.code): FastifyReply => {
    // A refused raw upload may leave its body unread: the connection cannot carry another request.
    if (rawBody && !reply.request.raw.readableEnded) closeAfterAnswer(reply);
    if (response.status >= 500) deps.reportServerError(errors.family, reportedCode ?? `HTTP_${response.status}`);
    return send(reply, response);
  };

  // Callback style: with memory counters (one process) a request passes its checks without a promise or a microtask;
  // Redis counters are awaited.
  function onRequest(request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void) {
    const rejection = check(request.raw);
    if (rejection !== undefined) return void sendEarly(request, reply, rejectionResponses[rejection]);
    if (limits.length === 0) return done();
    const counted = deps.rateLimiter.exceededNow(limits, request.ip);
    if (counted === NOT_COUNTED) {
      deps.rateLimiter.exceeded(limits, request.ip).then((exceeded) => (exceeded === undefined ? done() : void sendEarly(request, reply, exceeded.rejection)), done);
      return;
    }
    if (counted !== undefined) return void sendEarly(request, reply, counted.rejection);
    done();
  }

  /** The answer to a request whose credential does not hold, or undefined when it holds. */
  async function credentialRefusal(check: CredentialCheck, input: RouteInput, request: FastifyRequest): Promise<PreparedResponse | undefined> {
    let checkVariables: Record<string, unknown>;
    try {
      checkVariables = check.variables(input);
    } catch (error) {
      if (error instanceof RouteInputError) return error.response ?? errors.response(error.code);
      throw error;
    }
    try {
      const result = await deps.executor.execute(check.operation, checkVariables, { clientIp: request.ip, requestId: request.id });
      const refused = result.errors?.[0];
      return refused === undefined ? undefined : errors.forGraphQLError(refused);
    } catch (error) {
      if (error instanceof ExecutorUnavailableError) return unavailable;
      throw error;
    }
  }

  async function handler(request: FastifyRequest, reply: FastifyReply) {
    const body = request.body as ReadBody | undefined;
    if (body === BODY_TOO_LARGE) {
      // Reading stopped mid-body: the connection cannot carry another request.
      closeAfterAnswer(reply);
      return send(reply, rejectionResponses.tooLarge);
    }
    let variables: Record<string, unknown>;
    const url = request.raw.url ?? "";
    const input = new RequestInput(pattern.params(rawPathOf(url)), url, Buffer.isBuffer(body) ? body : EMPTY_BODY, request.headers);
    try {
      variables = route.variables(input);
    } catch (error) {
      if (error instanceof RouteInputError) {
        const refused = route.credentialCheck ? await credentialRefusal(route.credentialCheck, input, request) : undefined;
        return answer(reply, refused ?? error.response ?? errors.response(error.code));
      }
      return answer(reply, errors.internal, errorName(error));
    }
    // The rate limits and HTTP rules above ran as for any request; only the operation's work is spared.
    const reuseKey = answers === undefined ? "" : JSON.stringify(variables);
    const version = answers?.begin() ?? null;
    const kept = answers?.lookup(version, reuseKey);
    if (kept !== undefined) return reply.code(kept.status).headers(errors.headers).send(kept.body);
    let result: OperationResult;
    try {
      result = await deps.executor.execute(route.operation, variables, {
        clientIp: request.ip,
        requestId: request.id,
        authorization: forwardsAuthorization ? request.headers.authorization : undefined,
      });
    } catch (error) {
      if (error instanceof ExecutorUnavailableError) {
        if (route.whenUnavailable) return reply.code(route.whenUnavailable.status).headers(errors.headers).send(route.whenUnavailable.body);
        return answer(reply, unavailable, `${unavailable.code}:${error.reason}`);
      }
      return answer(reply, errors.internal, errorName(error));
    }

    const firstError = result.errors?.[0];
    if (firstError !== undefined) {
      const response = errors.forGraphQLError(firstError);
      // An unknown code (validation failures of these fixed operations included) is a server bug: report it by name.
      const upstreamCode = firstError.extensions?.code;
      return answer(reply, response, response === errors.internal ? `upstream:${String(upstreamCode ?? "NO_CODE")}` : response.code);
    }
    if (!result.data) return answer(reply, errors.internal, "NO_DATA");
    if (route.raw) return serveRaw(route, request, reply, result.data, variables, deps, answer);
    let outcome: RouteOutcome;
    try {
      // Enum values in their REST spelling for every route (routes/enum-spelling.ts), before the route shapes its body;
      // in place: the executor's result belongs to this request alone.
      outcome = route.respond(restSpellingInPlace(route.operation, result.data));
    } catch (error) {
      return answer(reply, errors.internal, errorName(error));
    }
    if ("errorCode" in outcome) return answer(reply, errors.response(outcome.errorCode));
    if (answers !== undefined && outcome.status < 300) answers.keep(version, reuseKey, outcome);
    return reply.code(outcome.status).headers(errors.headers).send(outcome.body);
  }

  return {
    method: route.method,
    url: route.path,
    onRequest: needsOnRequest ? onRequest : undefined,
    handler,
  };
}

/** Hands a binary route its request after the authorising operation (route-definition.ts RawRoute). */
async function serveRaw(
  route: RouteDefinition,
  request: FastifyRequest,
  reply: FastifyReply,
  data: Record<string, unknown>,
  variables: Record<string, unknown>,
  deps: RouteDependencies,
  answer: (reply: FastifyReply, response: PreparedResponse, reportedCode?: string) => FastifyReply,
) {
  const { errors } = route;
  const fail = (code: string) => answer(reply, errors.response(code));
  try {
    return await route.raw!.serve({
      request,
      reply,
      data,
      variables,
      config: deps.config,
      execute: (operation, next) => deps.executor.execute(operation, next, { clientIp: request.ip, requestId: request.id }),
      fail,
      failWith: (result) => {
        const response = result.errors?.[0] ? errors.forGraphQLError(result.errors[0]) : errors.internal;
        return answer(reply, response, response.code);
      },
    });
  } catch (error) {
    if (reply.sent) {
      reply.raw.destroy();
      return reply;
    }
    if (error instanceof ExecutorUnavailableError) return answer(reply, errors.required(route.unavailableCode));
    return answer(reply, errors.internal, errorName(error));
  }
}

function resolveRejections(route: RouteDefinition): Record<Rejection, PreparedResponse> {
  const codes = route.rejections;
  if (hasRequestRules(route.rules) && codes === undefined) throw new Error(`route ${route.method} ${route.path} has rules but no rejection codes`);
  const responseOf = (code: string | undefined) => (code === undefined ? route.errors.internal : route.errors.required(code));
  return {
    unauthorized: responseOf(codes?.unauthorized),
    badHeaders: responseOf(codes?.badHeaders),
    notAcceptable: responseOf(codes?.notAcceptable),
    tooLarge: responseOf(codes?.tooLarge),
  };
}

/** A request as routes read it; the query string is parsed only for a route that reads it (most do not). */
class RequestInput implements RouteInput {
  private parsedQuery: URLSearchParams | undefined;

  constructor(
    readonly params: RouteInput["params"],
    private readonly url: string,
    readonly body: Buffer,
    readonly headers: RouteInput["headers"],
  ) {}

  /** The query string's parameters, percent-decoded the way Starlette reads them. */
  get query(): URLSearchParams {
    if (this.parsedQuery === undefined) {
      const start = this.url.indexOf("?");
      this.parsedQuery = new URLSearchParams(start === -1 ? "" : this.url.slice(start + 1));
    }
    return this.parsedQuery;
  }
}

/** Names an unexpected failure for the error report without its message. */
function errorName(error: unknown): string {
  return error instanceof Error ? error.name : "NON_ERROR_THROWN";
}
