/**
 * One typed client per REST listener, on openapi-fetch with the types generated from the committed OpenAPI documents:
 *   verify + ratings 1.0  HTTP_PORT   `createVerifyClient` (document 1 under /v1/verify/, document 2's 1.0 deployment)
 *   ratings 2.0           MCR2_PORT   `createRatings2Client`
 *   markets               MARKETS_PORT `createMarketsClient` (document 3 under /api/v1)
 * Base URL: the `baseUrl` option, else the listener's environment variable (docs/clients.md), else the platform's
 * default port on 127.0.0.1. Credentials come from the options (or their environment variables) and are sent on
 * every request that does not carry its own. Any answer outside 2xx throws an `ApiError` with the envelope's code.
 */
import createClient, { type Client, type Middleware } from "openapi-fetch";
import type { paths as HttpPaths } from "./generated/http.js";
import type { paths as Mcr2Paths } from "./generated/mcr2.js";
import type { paths as MarketsPaths } from "./generated/markets.js";
import { MESSAGE_CODES } from "./generated/codes.js";
import { ApiError, codeOf, type ErrorEnvelope } from "./errors.js";

export type { HttpPaths, Mcr2Paths, MarketsPaths };

type Env = Record<string, string | undefined>;
const defaultEnv = (): Env => (typeof process === "undefined" ? {} : process.env);

export interface ClientOptions {
  /** The listener's origin, e.g. `http://127.0.0.1:8100` (no path). */
  baseUrl?: string;
  /** Environment to read the defaults from (default `process.env`). */
  env?: Env;
  /** A fetch to send with (default `globalThis.fetch`). */
  fetch?: (request: Request) => Promise<Response>;
}

export interface VerifyClientOptions extends ClientOptions {
  /** Onboarding token for the chip challenge and evidence routes (default ONBOARDING_TOKEN). */
  onboardingToken?: string;
}

export interface MarketsClientOptions extends ClientOptions {
  /** An agent pairing session token, sent as `x-agent-pairing-token` (default MARKET_PAIRING_TOKEN). */
  pairingToken?: string;
  /** A machine session token, sent as `Authorization: Bearer` (the machine's authority for its writes). */
  machineSession?: string;
  /** A machine runtime agent's credentials, sent as `x-machine-agent-id` / `x-machine-agent-token`. */
  machineAgent?: { agentId: string; agentToken: string };
}

/** What every client has: the typed openapi-fetch client and where it points. */
export interface ListenerClient<Paths extends {}> {
  readonly baseUrl: string;
  readonly api: Client<Paths, `${string}/${string}`>;
}

export type VerifyClient = ListenerClient<HttpPaths>;
export type Ratings2Client = ListenerClient<Mcr2Paths>;
export interface MarketsClient extends ListenerClient<MarketsPaths> {
  /** A client of the same listener with other credentials (e.g. after pairing or opening a machine session). */
  with(options: Omit<MarketsClientOptions, "baseUrl" | "env" | "fetch">): MarketsClient;
  readonly options: MarketsClientOptions;
}

function resolveBase(options: ClientOptions, variable: string, port: number, fallback?: string): string {
  const env = options.env ?? defaultEnv();
  return (options.baseUrl ?? env[variable] ?? (fallback ? env[fallback] : undefined) ?? `http://127.0.0.1:${port}`).replace(/\/+$/, "");
}

/** Throws an ApiError for every answer outside 2xx; sends `headers` unless the request carries them already. */
function middleware(listener: string, headers: Record<string, string | undefined>): Middleware {
  return {
    onRequest({ request }) {
      for (const [name, value] of Object.entries(headers)) if (value !== undefined && !request.headers.has(name)) request.headers.set(name, value);
      return request;
    },
    async onResponse({ request, response }) {
      if (response.ok) return response;
      const text = await response.clone().text();
      let envelope: ErrorEnvelope | null = null;
      try {
        envelope = text ? (JSON.parse(text) as ErrorEnvelope) : null;
      } catch {
        envelope = null;
      }
      throw new ApiError(codeFor(listener, envelope, response.status), response.status, envelope, request.method, new URL(request.url).pathname);
    },
  };
}

function codeFor(listener: string, envelope: ErrorEnvelope | null, status: number): string {
  const detail = envelope?.detail;
  if (detail && typeof detail === "object" && typeof (detail as { code?: unknown }).code === "string") return (detail as { code: string }).code;
  if (typeof detail === "string") return MESSAGE_CODES[listener]?.[detail] ?? `HTTP_${status}`;
  return codeOf(envelope, status);
}

function listenerClient<Paths extends {}>(listener: string, baseUrl: string, options: ClientOptions, headers: Record<string, string | undefined>) {
  const api = createClient<Paths>({ baseUrl, ...(options.fetch ? { fetch: options.fetch } : {}) });
  api.use(middleware(listener, headers));
  return api;
}

/** Verification (document 1) and ratings 1.0 (document 2): HTTP_PORT; VERIFY_API_URL. */
export function createVerifyClient(options: VerifyClientOptions = {}): VerifyClient {
  const env = options.env ?? defaultEnv();
  const baseUrl = resolveBase(options, "VERIFY_API_URL", 8000);
  const token = options.onboardingToken ?? env.ONBOARDING_TOKEN;
  return { baseUrl, api: listenerClient<HttpPaths>("http", baseUrl, options, { authorization: token ? `Bearer ${token}` : undefined }) };
}

/** Ratings 1.0 alone: the same listener as verification; RATINGS_API_URL, else VERIFY_API_URL. */
export function createRatingsClient(options: ClientOptions = {}): VerifyClient {
  const env = options.env ?? defaultEnv();
  return createVerifyClient({ ...options, baseUrl: resolveBase(options, "RATINGS_API_URL", 8000, "VERIFY_API_URL"), onboardingToken: undefined, env: { ...env, ONBOARDING_TOKEN: undefined } });
}

/** Ratings 2.0 (document 2's 2.0 deployment): MCR2_PORT; RATINGS2_API_URL. */
export function createRatings2Client(options: ClientOptions = {}): Ratings2Client {
  const baseUrl = resolveBase(options, "RATINGS2_API_URL", 8200);
  return { baseUrl, api: listenerClient<Mcr2Paths>("mcr2", baseUrl, options, {}) };
}

/** Markets (document 3): MARKETS_PORT; MARKETS_API_URL (else MARKETS_URL, which the CLI's stream commands read). */
export function createMarketsClient(options: MarketsClientOptions = {}): MarketsClient {
  const env = options.env ?? defaultEnv();
  const baseUrl = resolveBase(options, "MARKETS_API_URL", 8100, "MARKETS_URL");
  const resolved: MarketsClientOptions = { ...options, baseUrl, pairingToken: options.pairingToken ?? env.MARKET_PAIRING_TOKEN };
  const api = listenerClient<MarketsPaths>("markets", baseUrl, options, {
    "x-agent-pairing-token": resolved.pairingToken,
    authorization: options.machineSession ? `Bearer ${options.machineSession}` : undefined,
    "x-machine-agent-id": options.machineAgent?.agentId,
    "x-machine-agent-token": options.machineAgent?.agentToken,
  });
  return {
    baseUrl,
    api,
    options: resolved,
    with: (more) => createMarketsClient({ ...resolved, ...more }),
  };
}

/**
 * The data of a successful call (`await ok(client.api.GET(...))`): a refusal already threw an ApiError in the
 * middleware, so what is left is the documented success body.
 */
export async function ok<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<NonNullable<T>> {
  const { data, response } = await call;
  if (data === undefined || data === null) {
    if (response.status === 204) return undefined as unknown as NonNullable<T>;
    throw new ApiError(`HTTP_${response.status}`, response.status, null, "?", response.url);
  }
  return data as NonNullable<T>;
}
