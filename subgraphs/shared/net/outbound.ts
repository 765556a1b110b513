/**
 * The platform's one way to call a URL that someone else chose (a machine's `data_api`, a provider's runtime
 * endpoint). Server-side request forgery is refused at every step:
 *
 * 1. The URL: http or https only, no credentials in it, cloud metadata host names refused, and an IP-literal host
 *    (in any spelling the URL parser accepts: decimal, octal, hex, short IPv4, IPv4-mapped IPv6) judged by
 *    `AddressPolicy` before anything is sent.
 * 2. The name: resolved once, inside the socket's own `lookup`, and refused if ANY address it resolves to is in a
 *    blocked range. The socket connects to the address that was checked, so a DNS answer that changes between a
 *    check and the connection (rebinding) cannot pass; the connected peer address is checked once more.
 * 3. The answer: redirects are never followed, the whole exchange has one deadline, and the body is counted while it
 *    streams (a `Content-Length` over the limit is refused before reading).
 *
 * Connections: a host name gets a fresh socket per call, so every call resolves and checks it (step 2). An IP-literal
 * origin (a provider on an allowed address, the embedded demo provider) keeps its connection between calls: no name
 * is resolved for it, every call still judges the literal (step 1), a pooled socket is connected to exactly that
 * address and port, and its peer address is checked again on each call. Idle pooled sockets close after
 * IDLE_SOCKET_MS, or earlier when the server's `Keep-Alive: timeout` hint says so.
 *
 * Each refusal is an `OutboundRefusal` with a documented `reason` (docs/outbound-requests.md).
 */
import dns from "node:dns";
import http from "node:http";
import https from "node:https";
import type { LookupFunction, Socket } from "node:net";
import { AddressPolicy, isIpLiteral, type BlockedRange } from "./address-policy.js";

export type OutboundRefusalReason =
  | "invalid_url"
  | "scheme_not_allowed"
  | "credentials_not_allowed"
  | `blocked_${BlockedRange}`
  | "dns_failed"
  | "connect_failed"
  | "timeout"
  | "too_large"
  | "redirect_not_followed"
  | "http_status"
  | "invalid_json"
  | "not_object";

const MESSAGES: Record<OutboundRefusalReason, string> = {
  invalid_url: "the URL is not a valid absolute URL",
  scheme_not_allowed: "only http and https URLs are allowed",
  credentials_not_allowed: "URLs with credentials are not allowed",
  blocked_loopback: "the address is a loopback address",
  blocked_private: "the address is in a private range",
  blocked_link_local: "the address is link-local",
  blocked_metadata: "the address is a cloud metadata endpoint",
  blocked_multicast: "the address is a multicast address",
  blocked_reserved: "the address is in a reserved range",
  dns_failed: "the host name could not be resolved",
  connect_failed: "the connection failed",
  timeout: "no complete answer within the deadline",
  too_large: "the answer exceeds the size limit",
  redirect_not_followed: "the server answered with a redirect, which is not followed",
  http_status: "the server answered with a non-success status",
  invalid_json: "the answer is not valid JSON",
  not_object: "the answer is not a JSON object",
};

export class OutboundRefusal extends Error {
  constructor(readonly reason: OutboundRefusalReason) {
    super(`outbound request refused: ${MESSAGES[reason]}`);
    this.name = "OutboundRefusal";
  }
}

export interface OutboundRequest {
  url: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Deadline of the whole exchange: connection, request, and the last byte of the answer. */
  timeoutMs: number;
  /** Largest answer body accepted. */
  maxResponseBytes: number;
}

export interface OutboundResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

export interface OutboundOptions {
  /**
   * Exact origins (`http://127.0.0.1:8300`) exempt from the address checks: only IP-literal origins, and only that
   * scheme, address and port. Role `all` passes the demo provider it runs itself (docs/outbound-requests.md).
   */
  allowedOrigins?: readonly string[];
}

/** How long an idle connection to an IP-literal origin is kept for the next call. */
const IDLE_SOCKET_MS = 1000;

export class OutboundClient {
  private readonly allowedOrigins: ReadonlySet<string>;
  /** Keep-alive pools, for IP-literal origins only (see the module's comment). */
  private readonly pools = {
    "http:": new http.Agent({ keepAlive: true, timeout: IDLE_SOCKET_MS }),
    "https:": new https.Agent({ keepAlive: true, timeout: IDLE_SOCKET_MS }),
  };

  /** `allowCidrs`: addresses an operator explicitly allows inside blocked ranges (OUTBOUND_ALLOW_CIDRS). */
  constructor(
    private readonly policy: AddressPolicy = new AddressPolicy(),
    options: OutboundOptions = {},
  ) {
    const origins = (options.allowedOrigins ?? []).map((origin) => new URL(origin));
    if (origins.some((origin) => !isIpLiteral(origin.hostname))) throw new Error("allowedOrigins must be IP-literal origins");
    this.allowedOrigins = new Set(origins.map((origin) => origin.origin));
  }

  private exempt(target: URL): boolean {
    return this.allowedOrigins.has(target.origin) && isIpLiteral(target.hostname);
  }

  /** The URL's own checks (step 1); nothing is resolved or sent. */
  check(url: string): URL {
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      throw new OutboundRefusal("invalid_url");
    }
    if (target.protocol !== "http:" && target.protocol !== "https:") throw new OutboundRefusal("scheme_not_allowed");
    if (target.username !== "" || target.password !== "") throw new OutboundRefusal("credentials_not_allowed");
    if (target.hostname === "") throw new OutboundRefusal("invalid_url");
    if (this.policy.isMetadataHostname(target.hostname)) throw new OutboundRefusal("blocked_metadata");
    if (isIpLiteral(target.hostname) && !this.exempt(target)) this.refuseBlocked(target.hostname);
    return target;
  }

  /** One HTTP exchange; any status is returned as is (3xx included: redirects are not followed). */
  request(request: OutboundRequest): Promise<OutboundResponse> {
    const target = this.check(request.url);
    const transport = target.protocol === "https:" ? https : http;
    const exempt = this.exempt(target);
    const literal = isIpLiteral(target.hostname);
    return new Promise<OutboundResponse>((resolve, reject) => {
      let settled = false;
      const fail = (error: unknown) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        outgoing.destroy();
        reject(error instanceof OutboundRefusal ? error : new OutboundRefusal("connect_failed"));
      };
      const timer = setTimeout(() => fail(new OutboundRefusal("timeout")), request.timeoutMs);
      const outgoing = transport.request(
        target,
        {
          method: request.method ?? "GET",
          headers: request.headers,
          // A host name gets a fresh socket per call: a pooled one could be connected to an address this call never
          // checked. An IP literal's pooled socket is connected to the literal this call judged.
          agent: literal ? this.pools[target.protocol as "http:" | "https:"] : false,
          lookup: this.checkedLookup,
        },
        (incoming) => {
          const declared = Number(incoming.headers["content-length"]);
          if (Number.isFinite(declared) && declared > request.maxResponseBytes) return fail(new OutboundRefusal("too_large"));
          const chunks: Buffer[] = [];
          let size = 0;
          incoming.on("data", (chunk: Buffer) => {
            size += chunk.length;
            if (size > request.maxResponseBytes) return fail(new OutboundRefusal("too_large"));
            chunks.push(chunk);
          });
          incoming.on("error", fail);
          incoming.on("end", () => {
            if (settled) return;
            settled = true;
            clearTimeout(timer);
            resolve({ status: incoming.statusCode ?? 0, headers: incoming.headers, body: Buffer.concat(chunks) });
          });
        },
      );
      outgoing.on("socket", (socket: Socket) => {
        const checkPeer = () => {
          try {
            if (socket.remoteAddress && !exempt) this.refuseBlocked(socket.remoteAddress);
          } catch (error) {
            fail(error);
          }
        };
        // A pooled socket is connected already: its peer is checked for this call now.
        if (outgoing.reusedSocket) checkPeer();
        else socket.once(target.protocol === "https:" ? "secureConnect" : "connect", checkPeer);
      });
      outgoing.on("error", fail);
      outgoing.end(request.body);
    });
  }

  /** GET a JSON object (the ratings `data_api` fetch): a 2xx answer whose body parses to a plain object. */
  async fetchJsonObject(url: string, limits: { timeoutMs: number; maxBytes: number }): Promise<Record<string, unknown>> {
    const response = await this.request({
      url,
      headers: { accept: "application/json" },
      timeoutMs: limits.timeoutMs,
      maxResponseBytes: limits.maxBytes,
    });
    if (response.status >= 300 && response.status < 400) throw new OutboundRefusal("redirect_not_followed");
    if (response.status < 200 || response.status >= 300) throw new OutboundRefusal("http_status");
    let value: unknown;
    try {
      value = JSON.parse(response.body.toString("utf8"));
    } catch {
      throw new OutboundRefusal("invalid_json");
    }
    if (value === null || typeof value !== "object" || Array.isArray(value)) throw new OutboundRefusal("not_object");
    return value as Record<string, unknown>;
  }

  private refuseBlocked(address: string): void {
    const blocked = this.policy.classify(address);
    if (blocked) throw new OutboundRefusal(`blocked_${blocked}`);
  }

  /** Resolves like the system does, and refuses the name if any of its addresses is blocked. */
  private readonly checkedLookup: LookupFunction = (hostname, options, callback) => {
    dns.lookup(hostname, { all: true, family: options.family, hints: options.hints }, (error, addresses) => {
      if (error || addresses.length === 0) return callback(new OutboundRefusal("dns_failed"), "", 0);
      for (const { address } of addresses) {
        const blocked = this.policy.classify(address);
        if (blocked) return callback(new OutboundRefusal(`blocked_${blocked}`), "", 0);
      }
      if (options.all) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, addresses);
      callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
}
