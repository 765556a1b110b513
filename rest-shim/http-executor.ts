/**
 * The shim's executor in the `rest` role: the named operation goes to a gateway process over HTTP.
 *
 * One keep-alive agent per executor (no TCP handshake per request), a request deadline, and the caller's
 * Authorization and client IP forwarded with the internal token that makes the gateway believe them. Any transport failure, a passed deadline, or an answer that is not a
 * GraphQL response throws `ExecutorUnavailableError`, which the shim answers with the route's 503.
 */
import http from "node:http";
import https from "node:https";
import { CLIENT_IP_HEADER, REQUEST_ID_HEADER, INTERNAL_TOKEN_HEADER } from "../subgraphs/shared/context.js";
import {
  ExecutorUnavailableError,
  type ForwardedRequest,
  type GraphQLExecutor,
  type OperationResult,
  type ShimOperation,
} from "./executor.js";

export interface HttpExecutorOptions {
  /**
   * The split topology's shared secret: with it the gateway believes the forwarded client IP and does not count the
   * operation against the per-IP limits again (this shim counted it).
   */
  internalToken?: string;
  /** Deadline for one operation, from sending to the last response byte (milliseconds). */
  timeoutMs?: number;
  /** Upper bound of concurrent connections to the gateway. */
  maxSockets?: number;
  /** Largest accepted response body (bytes); GraphQL answers of the shim's operations are small. */
  maxResponseBytes?: number;
}

/**
 * `gatewayUrl` is the gateway's GraphQL endpoint; a URL without a path (`http://host:4000`) means `/graphql` on it.
 */
export function createHttpExecutor(gatewayUrl: string, options: HttpExecutorOptions = {}): GraphQLExecutor {
  const url = new URL(gatewayUrl);
  if (url.pathname === "/") url.pathname = "/graphql";
  const transport = url.protocol === "https:" ? https : http;
  const agent = new transport.Agent({ keepAlive: true, maxSockets: options.maxSockets ?? 256 });
  const timeoutMs = options.timeoutMs ?? 15_000;
  const maxResponseBytes = options.maxResponseBytes ?? 1_048_576;
  // The operation part of the request body never changes: serialise it once per operation.
  const bodyPrefixes = new Map<ShimOperation, string>();

  function requestBody(operation: ShimOperation, variables: Record<string, unknown>): string {
    let prefix = bodyPrefixes.get(operation);
    if (prefix === undefined) {
      prefix = `{"query":${JSON.stringify(operation.document)},"operationName":${JSON.stringify(operation.name)},"variables":`;
      bodyPrefixes.set(operation, prefix);
    }
    return `${prefix}${JSON.stringify(variables)}}`;
  }

  return {
    execute(operation, variables, forwarded) {
      const body = requestBody(operation, variables);
      return new Promise<OperationResult>((resolve, reject) => {
        const request = transport.request(url, {
          method: "POST",
          agent,
          headers: requestHeaders(body, forwarded, options.internalToken),
        });
        const fail = (reason: ExecutorUnavailableError["reason"], cause?: unknown) => {
          clearTimeout(deadline);
          reject(new ExecutorUnavailableError(reason, { cause }));
        };
        const deadline = setTimeout(() => {
          fail("timeout");
          request.destroy();
        }, timeoutMs);
        request.on("error", (error) => fail("connection", error));
        request.on("response", (response) => {
          const chunks: Buffer[] = [];
          let received = 0;
          response.on("data", (chunk: Buffer) => {
            received += chunk.length;
            if (received > maxResponseBytes) {
              fail("bad_response");
              request.destroy();
              return;
            }
            chunks.push(chunk);
          });
          response.on("error", (error) => fail("connection", error));
          response.on("end", () => {
            clearTimeout(deadline);
            const result = parseGraphQLResponse(Buffer.concat(chunks).toString("utf8"));
            if (result === undefined) reject(new ExecutorUnavailableError("bad_response"));
            else resolve(result);
          });
        });
        request.end(body);
      });
    },
    async close() {
      agent.destroy();
    },
  };
}

function requestHeaders(body: string, forwarded: ForwardedRequest, internalToken: string | undefined): http.OutgoingHttpHeaders {
  const headers: http.OutgoingHttpHeaders = {
    "content-type": "application/json",
    accept: "application/json",
    "content-length": Buffer.byteLength(body),
    [CLIENT_IP_HEADER]: forwarded.clientIp,
  };
  if (internalToken !== undefined) headers[INTERNAL_TOKEN_HEADER] = internalToken;
  if (forwarded.authorization !== undefined) headers.authorization = forwarded.authorization;
  if (forwarded.requestId !== undefined) headers[REQUEST_ID_HEADER] = forwarded.requestId;
  return headers;
}

/**
 * Any status may carry a GraphQL response (Apollo answers validation failures with 400 and `errors`); anything
 * without `data` or `errors` (a proxy's 502 page, a truncated body) is not one.
 */
function parseGraphQLResponse(text: string): OperationResult | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const result = value as OperationResult;
  if (result.data === undefined && !Array.isArray(result.errors)) return undefined;
  return result;
}
