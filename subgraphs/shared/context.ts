/**
 * What a subgraph resolver sees as its context, whether it runs in-process behind the gateway or as its own process:
 * the shim's forwarded request facts, never raw HTTP objects.
 */
export interface SubgraphContext {
  /** Client IP as seen by the edge (the REST shim or the gateway listener). */
  clientIp?: string;
  /** The Authorization header value, forwarded unchanged. */
  authorization?: string;
  /**
   * The request came from the platform's own previous hop (split topology: rest -> gateway -> subgraph, proven by the
   * internal token), which already counted it against the per-IP limits of its client.
   */
  countedUpstream?: boolean;
  /** The request ID of the edge request (`x-request-id`), for log lines along the way. */
  requestId?: string;
}

/**
 * Header carrying the client IP from the edge (REST shim, gateway) to the next hop inside the platform; believed only
 * together with {@link INTERNAL_TOKEN_HEADER}.
 */
export const CLIENT_IP_HEADER = "x-client-ip";

/** Header carrying the request ID from the client to the edge and from hop to hop (subgraphs/shared/observability/http.ts). */
export const REQUEST_ID_HEADER = "x-request-id";

/** Header carrying `INTERNAL_TOKEN` between the roles of the split topology. */
export const INTERNAL_TOKEN_HEADER = "x-internal-token";
