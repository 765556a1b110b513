/**
 * Serves an ApolloServer (the gateway, or one subgraph in the split topology) at `/graphql` through Apollo's Fastify
 * integration (`@as-integrations/fastify`).
 *
 * Why Fastify and not Apollo's standalone server: `startStandaloneServer` fixes the body limit at 50 MB, enables CORS
 * and hides its `http.Server`, so neither the timeouts nor the connection cap could be set. Fastify is what the REST
 * shim runs on, so every listener of the platform gets its edges from one place (subgraphs/shared/http/listener.ts):
 * header, request and idle timeouts, the connection cap, graceful close, and `TRUST_PROXY` for the client IP.
 *
 * A body over `GRAPHQL_MAX_BODY_BYTES` is answered 413 before it is read, on a connection that then closes; invalid
 * JSON 400; any other failure outside Apollo's pipeline 500, all as GraphQL error bodies without internal messages.
 */
import { trustProxyOption } from "../subgraphs/shared/net/trust-proxy.js";
import fastifyApollo from "@as-integrations/fastify";
import type { ApolloServer } from "@apollo/server";
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from "fastify";
import { BearerTokens } from "../subgraphs/shared/bearer.js";
import type { PlatformConfig } from "../subgraphs/shared/config.js";
import { CLIENT_IP_HEADER, INTERNAL_TOKEN_HEADER, type SubgraphContext } from "../subgraphs/shared/context.js";
import { capConnections, closeAfterAnswer, closeListener, listenerOptions } from "../subgraphs/shared/http/listener.js";
import { observeRequests, requestIdOptions } from "../subgraphs/shared/observability/http.js";
import type { PlatformLog } from "../subgraphs/shared/observability/log.js";

export interface GraphQLListenerOptions {
  host: string;
  port: number;
  config: Pick<PlatformConfig, "listeners" | "graphql" | "trustProxy" | "internalToken"> & Partial<Pick<PlatformConfig, "logRequests" | "requestMetrics">>;
  /**
   * `public`: anyone may call (the gateway). A request carrying the internal token comes from the platform's own REST
   * role: its client IP header is believed and it was already counted against the per-IP limits.
   * `internal`: only callers with the internal token (a subgraph role, which serves the gateway alone).
   */
  audience: "public" | "internal";
  /** Extra GET routes beside /graphql (the gateway's supergraph and IDE pages: gateway/public-pages.ts). */
  pages?: (app: FastifyInstance) => void;
  /** Request log lines (one per request); none when absent. */
  log?: PlatformLog;
}

export interface RunningListener {
  url: string;
  close(): Promise<void>;
}

const errorBody = (message: string, code: string) => JSON.stringify({ errors: [{ message, extensions: { code } }] });
const JSON_TYPE = "application/json; charset=utf-8";

export async function listenGraphQL(server: ApolloServer<SubgraphContext>, options: GraphQLListenerOptions): Promise<RunningListener> {
  const { config } = options;
  const internalToken = new BearerTokens(config.internalToken ? [config.internalToken] : []);
  const fromPlatform = (request: FastifyRequest) => {
    const header = request.headers[INTERNAL_TOKEN_HEADER];
    return typeof header === "string" && internalToken.acceptsToken(header);
  };

  const app = Fastify({
    ...listenerOptions(config.listeners),
    logger: false,
    ...requestIdOptions,
    bodyLimit: config.graphql.maxBodyBytes,
    trustProxy: trustProxyOption(config.trustProxy) as boolean,
    return503OnClosing: false,
  });
  capConnections(app, config.listeners);
  observeRequests(app, options.audience === "public" ? "graphql" : "subgraph", {
    log: config.logRequests === false ? undefined : options.log,
    metrics: config.requestMetrics,
  });

  if (options.audience === "internal") {
    app.addHook("onRequest", async (request, reply) => {
      if (fromPlatform(request)) return;
      sendError(request, reply, 401, "This endpoint serves the platform's gateway only.", "UNAUTHENTICATED");
    });
  }
  options.pages?.(app);
  app.setNotFoundHandler((request, reply) => sendError(request, reply, 404, "Not found; GraphQL is served at /graphql.", "NOT_FOUND"));
  app.setErrorHandler((error: FastifyError, request, reply) => {
    switch (error.code) {
      case "FST_ERR_CTP_BODY_TOO_LARGE":
        return sendError(request, reply, 413, `The request body is larger than ${config.graphql.maxBodyBytes} bytes.`, "REQUEST_TOO_LARGE");
      case "FST_ERR_CTP_INVALID_MEDIA_TYPE":
        return sendError(request, reply, 415, "Send the operation as application/json.", "BAD_REQUEST");
      case "FST_ERR_CTP_INVALID_JSON":
      case "FST_ERR_CTP_EMPTY_JSON_BODY":
      case "FST_ERR_CTP_INVALID_CONTENT_LENGTH":
        return sendError(request, reply, 400, "The request body is not valid JSON.", "BAD_REQUEST");
      default:
        return sendError(request, reply, 500, "Internal server error.", "INTERNAL_SERVER_ERROR");
    }
  });

  await app.register(fastifyApollo(server), {
    context: async (request: FastifyRequest): Promise<SubgraphContext> => {
      const trusted = fromPlatform(request);
      const forwardedIp = request.headers[CLIENT_IP_HEADER];
      return {
        authorization: request.headers.authorization,
        clientIp: trusted && typeof forwardedIp === "string" ? forwardedIp : request.ip,
        countedUpstream: trusted,
        requestId: request.id,
      };
    },
  });

  await app.listen({ host: options.host, port: options.port });
  const { port } = app.server.address() as { port: number };
  return {
    url: `http://${options.host}:${port}/graphql`,
    close: () => closeListener(app, config.listeners.shutdownGraceMs),
  };
}

/** An answer outside Apollo's pipeline; a request whose body was not read closes its connection after it. */
function sendError(request: FastifyRequest, reply: FastifyReply, status: number, message: string, code: string): FastifyReply {
  const bodyUnread = request.body === undefined && (request.headers["content-length"] ?? "0") !== "0";
  if (bodyUnread || request.headers["transfer-encoding"] !== undefined) closeAfterAnswer(reply);
  return reply.code(status).header("content-type", JSON_TYPE).send(errorBody(message, code));
}
