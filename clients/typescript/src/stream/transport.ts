/**
 * Raw calls on the markets API through the typed client, for the stream steps (stream/api.ts) and the CLI
 * (gateway/cli/platform.ts re-exports them, so the CLI builds no HTTP request of its own).
 *
 * The callers keep their own wording for a refusal (exit 1 naming the envelope's code), so `send` answers every
 * status: a 2xx with its body, a refusal (the client's ApiError) with the envelope it carries. A network failure
 * is thrown as the client throws it.
 */
import { createMarketsClient, type MarketsClient, type MarketsClientOptions } from "../clients.js";
import { ApiError } from "../errors.js";

export { ApiError, type MarketsClient };

export interface Answer {
  status: number;
  body: any;
}

/** A markets client at `base` (the listener's origin, no path) with the given credentials. */
export function marketsClient(base: string, credentials: Omit<MarketsClientOptions, "baseUrl" | "env" | "fetch"> = {}): MarketsClient {
  return createMarketsClient({ ...credentials, baseUrl: base, env: {} });
}

export interface SendOptions {
  body?: unknown;
  /** Headers for this call only (a machine session's `authorization`, say). */
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

/** `method route` on the markets API (`route` under /api/v1, already encoded): the status and the JSON body. */
export async function send(client: MarketsClient, method: string, route: string, options: SendOptions = {}): Promise<Answer> {
  try {
    const { data, response } = await (client.api as any).request(method, `/api/v1${route}`, {
      body: options.body,
      headers: options.headers,
      signal: options.signal,
    });
    return { status: response.status, body: data ?? null };
  } catch (error) {
    if (error instanceof ApiError) return { status: error.status, body: error.envelope };
    throw error;
  }
}

/** PUT of raw bytes (a chunk's ciphertext) to `route` under /api/v1. */
export async function putBytes(client: MarketsClient, route: string, bytes: Uint8Array, headers: Record<string, string> = {}): Promise<Answer> {
  try {
    const { data, response } = await (client.api as any).request("PUT", `/api/v1${route}`, {
      body: bytes,
      bodySerializer: (raw: Uint8Array) => raw,
      headers: { ...headers, "content-type": "application/octet-stream" },
    });
    return { status: response.status, body: data ?? null };
  } catch (error) {
    if (error instanceof ApiError) return { status: error.status, body: error.envelope };
    throw error;
  }
}

/**
 * GET of raw bytes at `url` (absolute, or a path on the client's listener) from `start` on (Range), with a bearer
 * token: the response, its body not yet read; a refusal as its status and envelope.
 */
export async function getBytes(client: MarketsClient, url: string, token: string, start: number): Promise<{ response?: Response; refusal?: Answer }> {
  const absolute = /^https?:/.test(url) ? new URL(url) : null;
  const target = marketsClient(absolute ? absolute.origin : client.baseUrl);
  const pathname = absolute ? `${absolute.pathname}${absolute.search}` : `${url.startsWith("/api/") ? "" : "/api/v1"}${url}`;
  try {
    const { response } = await (target.api as any).request("GET", pathname, {
      parseAs: "stream",
      headers: { authorization: `Bearer ${token}`, ...(start > 0 ? { range: `bytes=${start}-` } : {}) },
    });
    return { response };
  } catch (error) {
    if (error instanceof ApiError) return { refusal: { status: error.status, body: error.envelope } };
    throw error;
  }
}
