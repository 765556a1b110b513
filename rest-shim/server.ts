/**
 * The shim's three listeners: HTTP_PORT serves documents 1 and 2 (document 2's 1.0 deployment), MCR2_PORT serves
 * document 2's 2.0 deployment, MARKETS_PORT serves document 3 (under /api/v1).
 * Nothing listens until `listen()`; ports come from the config (0 picks a free port, for tests).
 *
 * Fastify is configured so that only the route table answers: no logger, no JSON body parsing (bodies are raw
 * bytes, read per route with its own limit), no trailing-slash or case-insensitive matching (the read route never
 * redirects and serves one spelling), and every answer for a request no route took comes from the path index in
 * the envelope of the area the path belongs to.
 */
import { trustProxyOption } from "../subgraphs/shared/net/trust-proxy.js";
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from "fastify";
import type { PlatformConfig } from "../subgraphs/shared/config.js";
import { capConnections, closeListener, listenerOptions } from "../subgraphs/shared/http/listener.js";
import { createBodyReader, ignoreBody } from "./body.js";
import type { AnswerVersions } from "./answer-reuse.js";
import type { GraphQLExecutor } from "./executor.js";
import { countHeader, createOnboardingTokenCheck } from "./onboarding-auth.js";
import { BearerTokens } from "../subgraphs/shared/bearer.js";
import { MARKETS_ERRORS } from "./errors/markets.js";
import { observeRequests, requestIdOptions } from "../subgraphs/shared/observability/http.js";
import type { PlatformLog } from "../subgraphs/shared/observability/log.js";
import { OPENAPI_PATH, serveOpenApi } from "./openapi/serve.js";
import { pageLimit } from "./page-limit.js";
import { buildPathIndex } from "./path-index.js";
import { createRateLimiter, type RateLimiter } from "./rate-limit.js";
import { compileRoute, send, sendEarly, type RouteDependencies } from "./route-handler.js";
import { AREAS, ROUTES, type ListenerName, type RouteArea, type RouteDefinition } from "./routes.js";

export interface RestListenersOptions {
  config: PlatformConfig;
  executor: GraphQLExecutor;
  /** The route table; defaults to `ROUTES` (tests add entries, e.g. a markets route to prove its 405). */
  routes?: readonly RouteDefinition[];
  /** Request log lines (one per request); none when absent. */
  log?: PlatformLog;
  /** Defaults to memory counters, or Redis when `config.redisUrl` is set; closed by `close()` only if created here. */
  rateLimiter?: RateLimiter;
  /**
   * Version sources for routes that declare `reuseWhile` (answer-reuse.ts). Only a process that also runs the
   * gateway and subgraphs the answers come from can give them (role `all`); without, every request runs its operation.
   */
  answerVersions?: AnswerVersions;
}

export interface RestListeners {
  /** Documents 1 and 2 (HTTP_PORT). */
  http: FastifyInstance;
  /** Document 2, 2.0 deployment (MCR2_PORT). */
  mcr2: FastifyInstance;
  /** Document 3 (MARKETS_PORT). */
  markets: FastifyInstance;
  listen(): Promise<{ httpUrl: string; marketsUrl: string; mcr2Url: string }>;
  /**
   * Closes the three listeners (requests in flight finish within the configured grace) and the rate limiter's store if
   * it was created here; the executor belongs to the caller.
   */
  close(): Promise<void>;
}

export function createRestListeners(options: RestListenersOptions): RestListeners {
  const { config, executor } = options;
  const reportServerError =
    config.logLevel === "silent"
      ? () => {}
      : (family: string, code: string) => console.error(`rest-shim: ${family} answered 5xx ${code}`);
  const rateLimiter =
    options.rateLimiter ?? createRateLimiter(config, (name) => reportServerError("rate-limit", `REDIS_${name}`));
  const deps: RouteDependencies = {
    config,
    executor,
    rateLimiter,
    onboardingToken: createOnboardingTokenCheck(config.onboardingTokens),
    reportServerError,
    answerVersions: options.answerVersions,
  };
  const routes = options.routes ?? ROUTES;
  const http = buildListener("http", routes, deps, options.log);
  const markets = buildListener("markets", routes, deps, options.log);
  const mcr2 = buildListener("mcr2", routes, deps, options.log);

  return {
    http,
    mcr2,
    markets,
    async listen() {
      const [httpUrl, marketsUrl, mcr2Url] = await Promise.all([
        http.listen({ host: config.host, port: config.httpPort }),
        markets.listen({ host: config.host, port: config.marketsPort }),
        mcr2.listen({ host: config.host, port: config.ratings.v2.port }),
      ]);
      return { httpUrl, marketsUrl, mcr2Url };
    },
    async close() {
      const grace = config.listeners.shutdownGraceMs;
      await Promise.all([closeListener(http, grace), closeListener(markets, grace), closeListener(mcr2, grace)]);
      if (options.rateLimiter === undefined) await rateLimiter.close();
    },
  };
}

function buildListener(listener: ListenerName, allRoutes: readonly RouteDefinition[], deps: RouteDependencies, log?: PlatformLog) {
  const routes = allRoutes.filter((route) => route.area.listener === listener);
  const areas: RouteArea[] = Object.values(AREAS).filter((area) => area.listener === listener);
  const paths = buildPathIndex(routes, areas);

  const app = Fastify({
    ...listenerOptions(deps.config.listeners),
    logger: false,
    ...requestIdOptions,
    // The per-IP limits key on request.ip: behind a load balancer, TRUST_PROXY lets it name the real client.
    // (Cast: given the union type, Fastify's overloads pick its HTTP/2 signature; at run time every form works.)
    trustProxy: trustProxyOption(deps.config.trustProxy) as boolean,
    // During shutdown in-flight requests finish normally; Fastify's own 503 body is not in any of our envelopes.
    return503OnClosing: false,
    exposeHeadRoutes: true,
    routerOptions: { ignoreTrailingSlash: false, ignoreDuplicateSlashes: false, caseSensitive: true },
    // The router could not decode the path (bad %-escape, parameter over 100 characters).
    frameworkErrors: (_error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
      sendEarly(request, reply, paths.undecodable(request.raw.method ?? "", request.raw.url ?? "/"));
    },
  });

  capConnections(app, deps.config.listeners);
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", ignoreBody);

  if (listener === "markets" && deps.config.markets.apiKeys.length > 0) requirePlatformKey(app, deps.config.markets.apiKeys);

  // Unknown path or method: answered before Fastify would read or type-check a body.
  app.addHook("onRequest", (request, reply, done) => {
    if (request.is404) {
      sendEarly(request, reply, paths.unmatched(request.raw.method ?? "", request.raw.url ?? "/"));
      return;
    }
    done();
  });

  app.setErrorHandler((error: FastifyError, request, reply) => {
    const area = paths.areaOf(request.raw.url ?? "/");
    deps.reportServerError(listener, error.code ?? error.name);
    reply.header("connection", "close");
    send(reply, area.internalError);
  });

  observeRequests(app, listener, { log: deps.config.logRequests ? log : undefined, metrics: deps.config.requestMetrics });
  const docsArea = paths.areaOf(OPENAPI_PATH);
  const docsLimit = pageLimit(deps.rateLimiter, deps.config.rateLimits, (request, reply, limit, windowMs) =>
    sendEarly(request, reply, docsArea.rateLimited(limit, windowMs)),
  );
  serveOpenApi(app, listener, routes, deps.config, docsLimit);
  for (const route of routes) {
    const routeOptions = compileRoute(route, deps);
    const bodyLimit = route.rules.jsonBody?.limit;
    if (route.rules.octetBody !== undefined) {
      // A raw upload: the body stays an unread stream for the route's own handler (rest-shim/stream-data.ts).
      app.register(async (scope) => {
        scope.removeAllContentTypeParsers();
        scope.addContentTypeParser("*", (_request, payload, done) => done(null, payload));
        scope.route(routeOptions);
      });
      continue;
    }
    if (bodyLimit === undefined) {
      app.route(routeOptions);
      continue;
    }
    // Its own plugin scope, so the route's body reader carries the route's limit without per-request lookups.
    app.register(async (scope) => {
      scope.removeAllContentTypeParsers();
      scope.addContentTypeParser("*", createBodyReader(bodyLimit));
      scope.route(routeOptions);
    });
  }
  return app;
}

/**
 * The hosted markets API's platform key (public notes 2.1: `x-api-key`, AUTH_REQUIRED when missing), on when
 * MARKETS_API_KEYS is set: a request without exactly one `x-api-key` header holding a configured key (compared in
 * constant time) is answered 401 AUTH_REQUIRED in the markets envelope before anything else, unknown paths, the
 * route's header rules and the per-IP limits included, so a caller without a key learns nothing about the routes and
 * spends no client's rate-limit budget. `GET /health` is exempt, as on the hosted API.
 */
function requirePlatformKey(app: FastifyInstance, keys: readonly string[]): void {
  const accepted = new BearerTokens(keys);
  const refusal = MARKETS_ERRORS.required("AUTH_REQUIRED");
  app.addHook("onRequest", (request, reply, done) => {
    const { method, url = "/" } = request.raw;
    const exempt = (method === "GET" || method === "HEAD") && url.split("?")[0] === "/health";
    const header = request.headers["x-api-key"];
    if (exempt || (countHeader(request.raw.rawHeaders, "x-api-key") === 1 && typeof header === "string" && accepted.acceptsToken(header))) {
      done();
      return;
    }
    sendEarly(request, reply, refusal);
  });
}
