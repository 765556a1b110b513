/**
 * The GraphQL gateway (`GRAPHQL_PORT`, path /graphql) for operator operations, e.g. the chip evidence the operator
 * attests: one POST per operation with the operator's token as `Authorization: Bearer`. URL: the `url` option, else
 * GRAPHQL_URL, else http://127.0.0.1:4000/graphql. An answer whose first error names an `extensions.code`, or that
 * carries no data, throws an `ApiError` with that code (else `HTTP_<status>`).
 */
import { ApiError } from "./errors.js";

export interface GatewayClientOptions {
  url?: string;
  /** The operator's token (default OPERATOR_TOKEN). */
  operatorToken?: string;
  env?: Record<string, string | undefined>;
  fetch?: typeof globalThis.fetch;
}

export interface GatewayClient {
  readonly url: string;
  request<T>(query: string, variables?: Record<string, unknown>, init?: { signal?: AbortSignal }): Promise<T>;
}

export function createGatewayClient(options: GatewayClientOptions = {}): GatewayClient {
  const env = options.env ?? (typeof process === "undefined" ? {} : process.env);
  const url = options.url ?? env.GRAPHQL_URL ?? "http://127.0.0.1:4000/graphql";
  const token = options.operatorToken ?? env.OPERATOR_TOKEN;
  const send = options.fetch ?? globalThis.fetch;
  return {
    url,
    async request<T>(query: string, variables: Record<string, unknown> = {}, init: { signal?: AbortSignal } = {}): Promise<T> {
      const response = await send(url, {
        method: "POST",
        headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
        body: JSON.stringify({ query, variables }),
        signal: init.signal,
      });
      const body = (await response.json().catch(() => null)) as { data?: T; errors?: Array<{ extensions?: { code?: string } }> } | null;
      const code = body?.errors?.[0]?.extensions?.code;
      if (code || !body?.data) throw new ApiError(code ?? `HTTP_${response.status}`, response.status, body as Record<string, unknown> | null, "POST", new URL(url).pathname);
      return body.data;
    },
  };
}
