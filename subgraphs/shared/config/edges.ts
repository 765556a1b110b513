/**
 * Settings of the platform's edges, shared by every listener (REST, GraphQL, subgraph role): how long a client may
 * take to send a request, how many connections one listener holds, how much one GraphQL operation may cost, and how
 * long shutdown waits for requests in flight. docs/operations.md lists them with their defaults.
 */
import { ConfigError, int, type Env } from "./env.js";

export interface ListenerLimits {
  /** The whole header block must arrive within this time (Node's `headersTimeout`). */
  headersTimeoutMs: number;
  /** The whole request, headers and body, must arrive within this time (Node's `requestTimeout`). */
  requestTimeoutMs: number;
  /** A keep-alive connection with no request in flight is closed after this time. */
  idleTimeoutMs: number;
  /** Open connections per listener; further ones are closed at once. */
  maxConnections: number;
  /** On SIGTERM/SIGINT, requests in flight get this long to finish before their connections are cut. */
  shutdownGraceMs: number;
}

export interface GraphQLLimits {
  /** Largest accepted request body on a GraphQL listener (bytes); larger ones get 413. */
  maxBodyBytes: number;
  /** Lexical tokens per document (parsing stops at the limit). */
  maxTokens: number;
  /** Nesting depth of selections. */
  maxDepth: number;
  /** Aliases per operation. */
  maxAliases: number;
  /** graphql-armor's cost: objects 2, scalars 1, times 1.5 per level of depth. */
  maxCost: number;
  /** Directives per operation. */
  maxDirectives: number;
}

function positive(env: Env, name: string, fallback: number): number {
  const value = int(env, name, fallback);
  if (value < 1) throw new ConfigError(`${name} must be a positive integer`);
  return value;
}

export function loadListenerLimits(env: Env): ListenerLimits {
  const limits = {
    headersTimeoutMs: positive(env, "HTTP_HEADERS_TIMEOUT_MS", 10_000),
    requestTimeoutMs: positive(env, "HTTP_REQUEST_TIMEOUT_MS", 30_000),
    idleTimeoutMs: positive(env, "HTTP_IDLE_TIMEOUT_MS", 5_000),
    maxConnections: positive(env, "HTTP_MAX_CONNECTIONS", 1024),
    shutdownGraceMs: positive(env, "SHUTDOWN_GRACE_MS", 5_000),
  };
  // Node refuses a header deadline later than the request deadline.
  if (limits.headersTimeoutMs > limits.requestTimeoutMs) {
    throw new ConfigError("HTTP_HEADERS_TIMEOUT_MS must not exceed HTTP_REQUEST_TIMEOUT_MS");
  }
  return limits;
}

export function loadGraphQLLimits(env: Env): GraphQLLimits {
  return {
    maxBodyBytes: positive(env, "GRAPHQL_MAX_BODY_BYTES", 262_144),
    maxTokens: positive(env, "GRAPHQL_MAX_TOKENS", 1000),
    maxDepth: positive(env, "GRAPHQL_MAX_DEPTH", 8),
    maxAliases: positive(env, "GRAPHQL_MAX_ALIASES", 15),
    maxCost: positive(env, "GRAPHQL_MAX_COST", 5000),
    maxDirectives: positive(env, "GRAPHQL_MAX_DIRECTIVES", 20),
  };
}
