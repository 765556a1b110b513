/**
 * Per-IP limits: which requests count (after the token and header checks), per-route and API-wide counters, the
 * 429 of each area (verify, ratings, markets), HEAD counted like GET, probes never limited, window roll-over, the
 * client IP behind proxies (TRUST_PROXY as true, a hop count, an address or CIDR), an IPv6 /64 counted as one client
 * (and IPv4-mapped IPv6 as its IPv4 address). Counters in Redis are in rate-limit-redis.test.ts.
 *
 * Each test starts its own shim, so no count carries from one test to the next, and the shim's window clock stands
 * still (`shim.rateLimitClock`): a wall-clock minute boundary cannot reset a count in the middle of a sequence.
 */
import { afterEach, describe, expect, it } from "vitest";
import { MARKETS_ERRORS } from "../../rest-shim/errors/markets.js";
import { RATINGS_ERRORS } from "../../rest-shim/errors/ratings.js";
import { OPERATIONS } from "../../rest-shim/operations.js";
import { AREAS, ROUTES, type RouteDefinition } from "../../rest-shim/routes.js";
import { MemoryCounterStore, RateLimiter, type RateLimitRule } from "../../rest-shim/rate-limit.js";
import { startShim, statuses, type RunningShim } from "./helpers.js";
import { testConfig } from "../support/config.js";
import { call, postHeaders, rawRequest } from "../support/http.js";
import { verifyBody } from "../support/verify.js";

const RATE_LIMITED = verifyBody("RATE_LIMITED", "Too many requests; retry later.");

const challenge = (shim: RunningShim, headers = postHeaders()) =>
  call(`${shim.httpUrl}/v1/verify/chip/challenge`, { method: "POST", headers, body: '{"machineId":"1"}' });
const evidence = (shim: RunningShim) =>
  call(`${shim.httpUrl}/v1/verify/chip/evidence`, { method: "POST", headers: postHeaders(), body: "{}" });
const read = (shim: RunningShim) => call(`${shim.httpUrl}/v1/verify/machines/1`);

/** Shims started by the current test, closed after it. */
const started: RunningShim[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((shim) => shim.close()));
});
async function shimWith(env: Record<string, string>, routes?: readonly RouteDefinition[]): Promise<RunningShim> {
  const shim = await startShim({ config: testConfig(env), routes });
  started.push(shim);
  return shim;
}

/** A markets route counting the markets per-IP limit, until document 3's routes exist in the table. */
const MARKETS_PROBE: RouteDefinition = {
  method: "GET",
  path: "/api/v1/streams/:streamId",
  area: AREAS.markets,
  errors: MARKETS_ERRORS,
  operation: OPERATIONS.health,
  rules: {},
  rateLimits: ["marketsPerIp"],
  unavailableCode: "SERVICE_UNAVAILABLE",
  variables: () => ({}),
  respond: (data) => ({ status: 200, body: Buffer.from(JSON.stringify({ item: data.health })) }),
};

describe("with memory counters", () => {
  it("counts only requests that passed the token and header checks; the 429 reaches no GraphQL", async () => {
    const shim = await shimWith({ RATE_LIMIT_CHALLENGE_PER_IP: "2" });
    expect(await statuses(5, () => challenge(shim, postHeaders({ authorization: "Bearer wrong" })))).toEqual([401, 401, 401, 401, 401]);
    expect(await statuses(2, () => challenge(shim, postHeaders({ accept: "text/html" })))).toEqual([406, 406]);
    expect(await statuses(3, () => challenge(shim))).toEqual([201, 201, 429]);
    expect(shim.executor.calls.length).toBe(2);
    const limited = await challenge(shim);
    expect(limited.body).toBe(RATE_LIMITED);
    expect(limited.headers.get("cache-control")).toBe("no-store");
    expect(shim.executor.calls.length).toBe(2);
  });

  it("the evidence route has its own limit", async () => {
    const shim = await shimWith({ RATE_LIMIT_EVIDENCE_PER_IP: "3" });
    expect(await statuses(4, () => evidence(shim))).toEqual([202, 202, 202, 429]);
    expect(await statuses(1, () => challenge(shim))).toEqual([201]);
  });

  it("the read route has its own limit and its 429 carries no Retry-After", async () => {
    const shim = await shimWith({ RATE_LIMIT_VERIFY_READ_PER_IP: "2" });
    expect(await statuses(3, () => read(shim))).toEqual([200, 200, 429]);
    const limited = await read(shim);
    expect(limited.body).toBe(RATE_LIMITED);
    expect(limited.headers.get("retry-after")).toBeNull();
  });

  it("the API-wide limit counts every verify route", async () => {
    const shim = await shimWith({ RATE_LIMIT_VERIFY_API_PER_IP: "6" });
    expect(await statuses(2, () => challenge(shim))).toEqual([201, 201]);
    expect(await statuses(2, () => read(shim))).toEqual([200, 200]);
    expect(await statuses(2, () => evidence(shim))).toEqual([202, 202]);
    expect(await statuses(1, () => read(shim))).toEqual([429]);
    expect(await statuses(1, () => challenge(shim))).toEqual([429]);
  });

  it("HEAD requests are counted by the same limits as GET", async () => {
    const shim = await shimWith({ RATE_LIMIT_VERIFY_READ_PER_IP: "3" });
    const head = () => rawRequest(shim.httpPort, ["HEAD /v1/verify/machines/1 HTTP/1.1", "Host: t", "Connection: close"]);
    expect(await statuses(2, head)).toEqual([200, 200]);
    expect(await statuses(2, () => read(shim))).toEqual([200, 429]);
    const limitedHead = await head();
    expect(limitedHead.status).toBe(429);
    expect(limitedHead.body).toBe("");
  });

  it("ratings routes answer slowapi's 429 text, and the probes are never limited", async () => {
    const shim = await shimWith({ RATE_LIMIT_RATINGS_PER_IP: "2" });
    expect(await statuses(3, () => call(`${shim.httpUrl}/mcr/did:x`))).toEqual([200, 200, 429]);
    expect((await call(`${shim.httpUrl}/mcr/did:x`)).body).toBe('{"detail":"Rate limit exceeded: 2 per 1 minute"}');
    expect(await statuses(5, () => call(`${shim.httpUrl}/health`))).toEqual([200, 200, 200, 200, 200]);
    expect(await statuses(5, () => call(`${shim.httpUrl}/ready`))).toEqual([200, 200, 200, 200, 200]);
  });

  it("markets routes answer the markets envelope's 429 after RATE_LIMIT_MARKETS_PER_IP", async () => {
    const shim = await shimWith({ RATE_LIMIT_MARKETS_PER_IP: "2" }, [...ROUTES, MARKETS_PROBE]);
    expect(await statuses(3, () => call(`${shim.marketsUrl}/api/v1/streams/7`))).toEqual([200, 200, 429]);
    const limited = await call(`${shim.marketsUrl}/api/v1/streams/7`);
    expect(limited.body).toBe('{"error":{"code":"RATE_LIMITED","message":"Too many requests; retry later."}}');
    expect(limited.headers.get("content-type")).toBe("application/json; charset=utf-8");
    // The markets counter is its own: the verify read route still answers.
    expect((await read(shim)).status).toBe(200);
  });

  it("a count lasts exactly its window: the last millisecond is still limited, the next window starts fresh", async () => {
    const shim = await shimWith({ RATE_LIMIT_VERIFY_READ_PER_IP: "2", RATE_LIMIT_WINDOW_MS: "60000" });
    const clock = shim.rateLimitClock!;
    clock.set(Math.floor(clock.now() / 60_000) * 60_000); // the first millisecond of a window
    expect(await statuses(3, () => read(shim))).toEqual([200, 200, 429]);
    clock.advance(59_999);
    expect(await statuses(1, () => read(shim))).toEqual([429]);
    clock.advance(1);
    expect(await statuses(3, () => read(shim))).toEqual([200, 200, 429]);
  });

  it("RATE_LIMIT_WINDOW_MS sets the window", async () => {
    const shim = await shimWith({ RATE_LIMIT_VERIFY_READ_PER_IP: "1", RATE_LIMIT_WINDOW_MS: "5000" });
    const clock = shim.rateLimitClock!;
    clock.set(Math.floor(clock.now() / 5000) * 5000);
    expect(await statuses(2, () => read(shim))).toEqual([200, 429]);
    clock.advance(5000);
    expect(await statuses(2, () => read(shim))).toEqual([200, 429]);
  });
});

describe("query strings on the POST routes are ignored", () => {
  it("the challenge route takes machineId from the body, never from the query", async () => {
    const shim = await shimWith({});
    const answer = await call(`${shim.httpUrl}/v1/verify/chip/challenge?machineId=999&x=1`, {
      method: "POST",
      headers: postHeaders(),
      body: '{"machineId":"1"}',
    });
    expect(answer.status).toBe(201);
    expect(shim.executor.calls.map((c) => c.variables)).toEqual([{ machineId: "1" }]);
  });

  it("the evidence route passes the body text unchanged, whatever the query says", async () => {
    const shim = await shimWith({});
    const answer = await call(`${shim.httpUrl}/v1/verify/chip/evidence?evidence=%7B%7D`, { method: "POST", headers: postHeaders(), body: '{"a":1}' });
    expect(answer.status).toBe(202);
    expect(shim.executor.calls.map((c) => c.variables)).toEqual([{ evidence: '{"a":1}' }]);
  });

  it("a query string does not open a second counter", async () => {
    const shim = await shimWith({ RATE_LIMIT_CHALLENGE_PER_IP: "2" });
    const post = (query: string) => call(`${shim.httpUrl}/v1/verify/chip/challenge${query}`, { method: "POST", headers: postHeaders(), body: '{"machineId":"1"}' });
    expect([(await post("")).status, (await post("?a=1")).status, (await post("?b=2")).status]).toEqual([201, 201, 429]);
  });
});

describe("client IP behind a load balancer", () => {
  const readFrom = (shim: RunningShim, forwardedFor: string) =>
    call(`${shim.httpUrl}/v1/verify/machines/1`, { headers: { "x-forwarded-for": forwardedFor } });
  const limitOne = (trustProxy?: string) => shimWith({ RATE_LIMIT_VERIFY_READ_PER_IP: "1", ...(trustProxy === undefined ? {} : { TRUST_PROXY: trustProxy }) });

  it("without TRUST_PROXY, X-Forwarded-For is ignored: every client behind it shares the socket's count", async () => {
    const shim = await limitOne();
    expect([(await readFrom(shim, "203.0.113.1")).status, (await readFrom(shim, "203.0.113.2")).status]).toEqual([200, 429]);
    expect(shim.executor.calls.map((c) => c.request.clientIp)).toEqual(["127.0.0.1"]);
  });

  it("TRUST_PROXY=false is the same as unset", async () => {
    const shim = await limitOne("false");
    expect([(await readFrom(shim, "203.0.113.1")).status, (await readFrom(shim, "203.0.113.2")).status]).toEqual([200, 429]);
  });

  it.each([
    ["an address", "127.0.0.1"],
    ["a CIDR", "127.0.0.0/8"],
    ["true", "true"],
  ])("TRUST_PROXY as %s: each forwarded client has its own count", async (_label, trustProxy) => {
    const shim = await limitOne(trustProxy);
    expect([(await readFrom(shim, "203.0.113.1")).status, (await readFrom(shim, "203.0.113.1")).status]).toEqual([200, 429]);
    expect((await readFrom(shim, "203.0.113.2")).status).toBe(200);
    expect(shim.executor.calls.map((c) => c.request.clientIp)).toEqual(["203.0.113.1", "203.0.113.2"]);
  });

  it("TRUST_PROXY as a CIDR that does not hold the proxy's address: X-Forwarded-For is ignored", async () => {
    const shim = await limitOne("10.0.0.0/8");
    expect([(await readFrom(shim, "203.0.113.1")).status, (await readFrom(shim, "203.0.113.2")).status]).toEqual([200, 429]);
  });

  it("an IPv6 /64 is one client: its addresses share one count, another /64 has its own; GraphQL sees the exact address", async () => {
    const shim = await limitOne("true");
    expect((await readFrom(shim, "2001:db8:7:1::1")).status).toBe(200);
    for (const sameSlash64 of ["2001:db8:7:1::2", "2001:db8:7:1:ffff:ffff:ffff:ffff", "2001:DB8:7:1:0:0:0:1"]) {
      expect((await readFrom(shim, sameSlash64)).status, sameSlash64).toBe(429);
    }
    expect((await readFrom(shim, "2001:db8:7:2::1")).status).toBe(200);
    expect((await readFrom(shim, "2001:db8:7:0:ffff:ffff:ffff:ffff")).status).toBe(200);
    expect(shim.executor.calls.map((c) => c.request.clientIp)).toEqual(["2001:db8:7:1::1", "2001:db8:7:2::1", "2001:db8:7:0:ffff:ffff:ffff:ffff"]);
  });

  it("an IPv4-mapped IPv6 address counts as its IPv4 address", async () => {
    const shim = await limitOne("true");
    expect((await readFrom(shim, "203.0.113.9")).status).toBe(200);
    expect((await readFrom(shim, "::ffff:203.0.113.9")).status).toBe(429);
    expect((await readFrom(shim, "::ffff:203.0.113.10")).status).toBe(200);
  });

  it("TRUST_PROXY=true takes the leftmost address; a hop count takes the address that many hops back", async () => {
    const all = await limitOne("true");
    expect((await readFrom(all, "203.0.113.1, 198.51.100.7")).status).toBe(200);
    expect(all.executor.calls.map((c) => c.request.clientIp)).toEqual(["203.0.113.1"]);

    const oneHop = await limitOne("1");
    // One trusted hop (the socket's peer): the client is the last address it forwarded, whatever precedes it.
    expect((await readFrom(oneHop, "203.0.113.1, 198.51.100.7")).status).toBe(200);
    expect((await readFrom(oneHop, "203.0.113.2, 198.51.100.7")).status).toBe(429);
    expect((await readFrom(oneHop, "203.0.113.1, 198.51.100.8")).status).toBe(200);
    expect(oneHop.executor.calls.map((c) => c.request.clientIp)).toEqual(["198.51.100.7", "198.51.100.8"]);

    const twoHops = await limitOne("2");
    expect((await readFrom(twoHops, "203.0.113.1, 198.51.100.7")).status).toBe(200);
    expect((await readFrom(twoHops, "203.0.113.2, 198.51.100.7")).status).toBe(200);
    expect(twoHops.executor.calls.map((c) => c.request.clientIp)).toEqual(["203.0.113.1", "203.0.113.2"]);
  });
});

describe("RateLimiter", () => {
  const rule = (name: string, limit: number): RateLimitRule => ({ name, limit, rejection: RATINGS_ERRORS.internal });

  it("starts a fresh count in each window and keeps clients apart", async () => {
    let now = 1_000_000;
    const limiter = new RateLimiter(new MemoryCounterStore(), 60_000, () => now);
    const rules = [rule("r", 2)];
    expect(await limiter.exceeded(rules, "a")).toBeUndefined();
    expect(await limiter.exceeded(rules, "a")).toBeUndefined();
    expect(await limiter.exceeded(rules, "a")).toBe(rules[0]);
    expect(await limiter.exceeded(rules, "b")).toBeUndefined();
    now += 60_000;
    expect(await limiter.exceeded(rules, "a")).toBeUndefined();
  });

  it("reports the first rule a request exceeds", async () => {
    const limiter = new RateLimiter(new MemoryCounterStore(), 60_000);
    const rules = [rule("wide", 10), rule("narrow", 1)];
    await limiter.exceeded(rules, "a");
    expect(await limiter.exceeded(rules, "a")).toBe(rules[1]);
  });
});
