/**
 * HTTP clients of the tests, over real sockets. Three clients for three needs:
 * - `send`: node:http with exactly the given headers (repeated headers, chunked bodies, a chosen loopback source
 *   address for per-IP limits); answers `HttpAnswer`.
 * - `call`: `fetch`, for ordinary requests; answers `SimpleResponse` (Headers object).
 * - `rawRequest`: a raw socket, for what no client sends (a body announced but never sent, malformed heads) and to
 *   time when the answer came.
 * Plus the request shapes every suite uses: the onboarding token and an authorised JSON POST's headers.
 */
import http from "node:http";
import net from "node:net";

/** The onboarding token of the platform defaults (`ONBOARDING_TOKENS`' dev value) and of `testConfig()`. */
export const ONBOARDING_TOKEN = "dev-onboarding-token";
/** A second onboarding token `testConfig()` accepts (token rotation). */
export const OTHER_ONBOARDING_TOKEN = "onboarding-token-B2";
/** The operator token of the platform defaults. */
export const OPERATOR_TOKEN = "dev-operator-token";
export const BEARER = `Bearer ${ONBOARDING_TOKEN}`;

// ---------------------------------------------------------------------------------------------------------------
// send (node:http)

export interface HttpAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  json(): any;
}

/** Keep-alive agent for the bulk tests (fuzz), so thousands of requests reuse a few sockets. */
export const keepAliveAgent = new http.Agent({ keepAlive: true, maxSockets: 8 });

export interface SendOptions {
  method?: string;
  headers?: Record<string, string | string[]>;
  body?: string | Uint8Array;
  /** Source address on the loopback network (127.0.0.0/8): a distinct client IP for the per-IP limits. */
  localAddress?: string;
  agent?: http.Agent;
}

/**
 * One HTTP request with exactly the given headers plus Host, and Content-Length for a body (an explicit
 * `transfer-encoding: chunked` header sends the body chunked instead).
 */
export function send(url: string, options: SendOptions = {}): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const headers = { ...(options.headers ?? {}) };
    const chunked = Object.keys(headers).some((name) => name.toLowerCase() === "transfer-encoding");
    if (options.body !== undefined && !chunked) headers["content-length"] = String(Buffer.byteLength(options.body));
    const request = http.request(
      url,
      {
        method: options.method ?? "POST",
        headers,
        localAddress: options.localAddress,
        agent: options.agent ?? false,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          resolve({ status: response.statusCode!, headers: response.headers, text, json: () => JSON.parse(text) });
        });
        response.on("error", reject);
      },
    );
    request.on("error", reject);
    if (options.body !== undefined && chunked) request.write(options.body);
    request.end(chunked ? undefined : options.body);
  });
}

/**
 * Headers of an authorised JSON POST; an override replaces a header, `undefined` removes it, an array repeats it
 * (`send` only: `fetch` cannot repeat a header).
 */
export function postHeaders<V extends string | string[] = string>(overrides: Record<string, V | undefined> = {}): Record<string, V> {
  const headers: Record<string, string | string[] | undefined> = {
    authorization: BEARER,
    "content-type": "application/json",
    accept: "application/json",
    ...overrides,
  };
  return Object.fromEntries(Object.entries(headers).filter((e) => e[1] !== undefined)) as Record<string, V>;
}

export const get = (url: string, options: Omit<SendOptions, "method"> = {}) => send(url, { ...options, method: "GET" });

export const putJson = (url: string, body: string | Uint8Array, headers: Record<string, string> = {}) =>
  send(url, { method: "PUT", headers: { "content-type": "application/json", ...headers }, body });

export const postJson = (url: string, body: unknown, options: Omit<SendOptions, "body" | "method"> = {}) =>
  send(url, {
    ...options,
    method: "POST",
    headers: { "content-type": "application/json", ...options.headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });

// ---------------------------------------------------------------------------------------------------------------
// call (fetch)

export interface SimpleResponse {
  status: number;
  headers: Headers;
  body: string;
}

/** `fetch` reduced to what the assertions need. */
export async function call(url: string, init: RequestInit = {}): Promise<SimpleResponse> {
  const response = await fetch(url, { redirect: "manual", ...init });
  return { status: response.status, headers: response.headers, body: await response.text() };
}

// ---------------------------------------------------------------------------------------------------------------
// rawRequest (raw socket)

export interface RawResponse {
  status: number;
  /** Header names in lower case; repeated headers joined with ", ". */
  headers: Record<string, string>;
  body: string;
  /** Milliseconds from sending the head to the end of the response. */
  elapsedMs: number;
}

/**
 * Sends `head` (request line and headers, CRLF separated, without the final empty line) and then `body` parts, and
 * reads one response. The socket stays open after the parts unless the server closes it, so a body that is
 * announced but never sent stays unsent. `timeoutMs` only turns a hang into a failure (no speed claim).
 */
export function rawRequest(port: number, head: string[], bodyParts: Array<string | Buffer> = [], timeoutMs = 30_000): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1");
    const started = Date.now();
    let received = Buffer.alloc(0);
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no complete response within ${timeoutMs} ms: ${received.toString("latin1")}`));
    }, timeoutMs);
    const isHead = head[0]!.startsWith("HEAD ");
    const tryParse = () => {
      const response = parseResponse(received, isHead);
      if (response === undefined) return;
      clearTimeout(timer);
      socket.destroy();
      resolve({ ...response, elapsedMs: Date.now() - started });
    };
    socket.on("data", (chunk) => {
      received = Buffer.concat([received, chunk]);
      tryParse();
    });
    socket.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    socket.on("connect", () => {
      socket.write(`${head.join("\r\n")}\r\n\r\n`);
      for (const part of bodyParts) socket.write(part);
    });
  });
}

function parseResponse(bytes: Buffer, isHead: boolean): Omit<RawResponse, "elapsedMs"> | undefined {
  const text = bytes.toString("latin1");
  const headEnd = text.indexOf("\r\n\r\n");
  if (headEnd === -1) return undefined;
  const [statusLine, ...lines] = text.slice(0, headEnd).split("\r\n");
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(":");
    const name = line.slice(0, colon).toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
  }
  const length = isHead ? 0 : Number(headers["content-length"] ?? 0);
  const body = bytes.subarray(headEnd + 4);
  if (body.length < length) return undefined;
  return { status: Number(statusLine!.split(" ")[1]), headers, body: body.subarray(0, length).toString("utf8") };
}

