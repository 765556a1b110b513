/**
 * What a subgraph resolver sees as its context, whether it runs in-process behind the gateway or as its own process:
 * the shim's forwarded request facts, never raw HTTP objects.
 */
export interface SubgraphContext {
  /** Client IP as seen by the edge (the REST shim or the gateway listener). */
  clientIp?: string;
  /** The Authorization header value, forwarded unchanged. */
  authorization?: string;
}

/** Header carrying the client IP from the edge (REST shim, gateway) to the next hop inside the platform. */
export const CLIENT_IP_HEADER = "x-client-ip";
