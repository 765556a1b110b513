/**
 * The seam between the REST shim and GraphQL. The shim turns a request into one named operation and hands it to an
 * executor: in-process against the gateway (role `all`) or over HTTP to a gateway process (role `rest`).
 */

/** One fixed, named GraphQL operation. `document` holds exactly one operation named `name`. */
export interface ShimOperation {
  name: string;
  document: string;
}

export interface GraphQLErrorShape {
  message: string;
  path?: ReadonlyArray<string | number>;
  extensions?: Record<string, unknown>;
}

export interface OperationResult {
  data?: Record<string, unknown> | null;
  errors?: ReadonlyArray<GraphQLErrorShape>;
}

/** What the shim forwards to GraphQL besides variables. Subgraphs see it as their context. */
export interface ForwardedRequest {
  /** Client address as the shim saw it (for per-machine and per-IP rules below the shim). */
  clientIp: string;
  /** The single Authorization header value, when the route takes one. */
  authorization?: string;
  /** The edge request's ID, sent on as `x-request-id`. */
  requestId?: string;
}

export interface GraphQLExecutor {
  execute(operation: ShimOperation, variables: Record<string, unknown>, request: ForwardedRequest): Promise<OperationResult>;
  close?(): Promise<void>;
}

/**
 * GraphQL could not be reached or gave no usable answer (gateway down, deadline passed, not a GraphQL response).
 * The shim answers it with the route's "unavailable" code (a 503 of its family): the client may retry.
 */
export class ExecutorUnavailableError extends Error {
  constructor(
    readonly reason: "connection" | "timeout" | "bad_response",
    options?: { cause?: unknown },
  ) {
    super(`GraphQL executor unavailable: ${reason}`, options);
    this.name = "ExecutorUnavailableError";
  }
}
