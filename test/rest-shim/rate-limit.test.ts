/**
 * Per-IP limits: which requests count (after the token and header checks), per-route and API-wide counters, the
 * 429 of each area, probes never limited, window roll-over, and counters shared through Redis by several shim
 * replicas.
 */
import net from "node:net";
import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RATINGS_ERRORS } from "../../rest-shim/errors/ratings.js";
import { MemoryCounterStore, RateLimiter, RedisCounterStore, type RateLimitRule } from "../../rest-shim/rate-limit.js";
import { startShim, type RunningShim } from "./helpers.js";
import { testConfig } from "../support/config.js";
import { call, postHeaders } from "../support/http.js";
import { verifyBody } from "../support/verify.js";

const RATE_LIMITED = verifyBody("RATE_LIMITED", "Too many requests; retry later.");
const REDIS_URL = "redis://127.0.0.1:6379";


const challenge = (shim: RunningShim, headers = postHeaders()) =>
  call(`${shim.httpUrl}/v1/verify/chip/challenge`, { method: "POST", headers, body: '{"machineId":"1"}' });
const evidence = (shim: RunningShim) =>
  call(`${shim.httpUrl}/v1/verify/chip/evidence`, { method: "POST", headers: postHeaders(), body: "{}" });
const read = (shim: RunningShim) => call(`${shim.httpUrl}/v1/verify/machines/1`);

async function statuses(count: number, send: () => Promise<{ status: number }>): Promise<number[]> {
  const result: number[] = [];
  for (let i = 0; i < count; i++) result.push((await send()).status);
  return result;
}

describe("with memory counters", () => {
  let shim: RunningShim;
  beforeAll(async () => {
    shim = await startShim({
      config: testConfig({
        RATE_LIMIT_CHALLENGE_PER_IP: "2",
        RATE_LIMIT_EVIDENCE_PER_IP: "3",
        RATE_LIMIT_VERIFY_READ_PER_IP: "2",
        RATE_LIMIT_VERIFY_API_PER_IP: "6",
        RATE_LIMIT_RATINGS_PER_IP: "2",
      }),
    });
  });
  afterAll(() => shim.close());

  it("counts only requests that passed the token and header checks; the 429 reaches no GraphQL", async () => {
    expect(await statuses(5, () => challenge(shim, postHeaders({ authorization: "Bearer wrong" })))).toEqual([401, 401, 401, 401, 401]);
    expect(await statuses(2, () => challenge(shim, postHeaders({ accept: "text/html" })))).toEqual([406, 406]);
    const calls = shim.executor.calls.length;
    expect(await statuses(3, () => challenge(shim))).toEqual([201, 201, 429]);
    expect(shim.executor.calls.length).toBe(calls + 2);
    const limited = await challenge(shim);
    expect(limited.body).toBe(RATE_LIMITED);
    expect(limited.headers.get("cache-control")).toBe("no-store");
  });

  it("the read route has its own limit and its 429 carries no Retry-After", async () => {
    expect(await statuses(3, () => read(shim))).toEqual([200, 200, 429]);
    const limited = await read(shim);
    expect(limited.body).toBe(RATE_LIMITED);
    expect(limited.headers.get("retry-after")).toBeNull();
  });

  it("the API-wide limit counts every verify route", async () => {
    // 4 challenge + 4 read requests so far (limited ones count too): 8 > 6, so evidence is refused at once.
    expect(await statuses(1, () => evidence(shim))).toEqual([429]);
  });

  it("ratings routes answer slowapi's 429 text, and the probes are never limited", async () => {
    expect(await statuses(3, () => call(`${shim.httpUrl}/mcr/did:x`))).toEqual([200, 200, 429]);
    expect((await call(`${shim.httpUrl}/mcr/did:x`)).body).toBe('{"detail":"Rate limit exceeded: 2 per 1 minute"}');
    expect(await statuses(5, () => call(`${shim.httpUrl}/health`))).toEqual([200, 200, 200, 200, 200]);
    expect(await statuses(5, () => call(`${shim.httpUrl}/ready`))).toEqual([200, 200, 200, 200, 200]);
  });
});

describe("client IP behind a load balancer", () => {
  const readFrom = (shim: RunningShim, forwardedFor: string) =>
    call(`${shim.httpUrl}/v1/verify/machines/1`, { headers: { "x-forwarded-for": forwardedFor } });

  it("without TRUST_PROXY, X-Forwarded-For is ignored: every client behind it shares the socket's count", async () => {
    const shim = await startShim({ config: testConfig({ RATE_LIMIT_VERIFY_READ_PER_IP: "2" }) });
    try {
      const answers = [await readFrom(shim, "203.0.113.1"), await readFrom(shim, "203.0.113.2"), await readFrom(shim, "203.0.113.3")];
      expect(answers.map((a) => a.status)).toEqual([200, 200, 429]);
    } finally {
      await shim.close();
    }
  });

  it("with TRUST_PROXY, each forwarded client has its own count", async () => {
    const shim = await startShim({ config: testConfig({ RATE_LIMIT_VERIFY_READ_PER_IP: "2", TRUST_PROXY: "127.0.0.1" }) });
    try {
      const first = [await readFrom(shim, "203.0.113.1"), await readFrom(shim, "203.0.113.1"), await readFrom(shim, "203.0.113.1")];
      expect(first.map((a) => a.status)).toEqual([200, 200, 429]);
      expect((await readFrom(shim, "203.0.113.2")).status).toBe(200);
    } finally {
      await shim.close();
    }
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

function redisReachable(): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(6379, "127.0.0.1");
    const settle = (reachable: boolean) => {
      socket.destroy();
      resolve(reachable);
    };
    socket.once("connect", () => settle(true));
    socket.once("error", () => settle(false));
    socket.setTimeout(500, () => settle(false));
  });
}

const redisUp = await redisReachable();
if (!redisUp) console.warn("Redis at 127.0.0.1:6379 is unreachable: the Redis rate-limit tests are skipped");

describe.skipIf(!redisUp)("with Redis counters", () => {
  it("two shim replicas share one count per IP, and keys expire with their window", async () => {
    const keyPrefix = `test:rest-shim:${randomUUID()}:`;
    const config = testConfig({ RATE_LIMIT_VERIFY_READ_PER_IP: "3" });
    const limiters = [0, 1].map(() => new RateLimiter(new RedisCounterStore(REDIS_URL, { keyPrefix }), config.rateLimits.windowMs));
    const replicas = await Promise.all(limiters.map((rateLimiter) => startShim({ config, rateLimiter })));
    const inspector = new Redis(REDIS_URL);
    try {
      const answers = [];
      for (let i = 0; i < 4; i++) answers.push((await read(replicas[i % 2]!)).status);
      expect(answers).toEqual([200, 200, 200, 429]);

      const keys = await inspector.keys(`${keyPrefix}*`);
      expect(keys.length).toBe(2); // verifyApiPerIp and verifyReadPerIp for 127.0.0.1
      for (const key of keys) {
        const ttl = await inspector.pttl(key);
        expect(ttl).toBeGreaterThan(0);
        expect(ttl).toBeLessThanOrEqual(60_000);
      }
    } finally {
      await Promise.all(replicas.map((replica) => replica.close()));
      await Promise.all(limiters.map((limiter) => limiter.close()));
      const keys = await inspector.keys(`${keyPrefix}*`);
      if (keys.length > 0) await inspector.del(...keys);
      await inspector.quit();
    }
  });

  it("createRestListeners uses Redis when config.redisUrl is set", async () => {
    const config = testConfig({ REDIS_URL, RATE_LIMIT_VERIFY_READ_PER_IP: "1" });
    const inspector = new Redis(REDIS_URL);
    const ourKeys = () => inspector.keys("rest-shim:rate:*:127.0.0.1");
    const removeOurKeys = async () => {
      const keys = await ourKeys();
      if (keys.length > 0) await inspector.del(...keys);
    };
    await removeOurKeys();
    const shim = await startShim({ config });
    try {
      expect(await statuses(2, () => read(shim))).toEqual([200, 429]);
      expect((await ourKeys()).length).toBe(2);
    } finally {
      await shim.close();
      await removeOurKeys();
      await inspector.quit();
    }
  });
});

describe("Redis down", () => {
  it("lets requests through and reports the outage once, by error name", async () => {
    const outages: string[] = [];
    const store = new RedisCounterStore("redis://127.0.0.1:1", { onOutage: (name) => outages.push(name) });
    const limiter = new RateLimiter(store, 60_000);
    const rules: RateLimitRule[] = [{ name: "r", limit: 1, rejection: RATINGS_ERRORS.internal }];
    for (let i = 0; i < 3; i++) expect(await limiter.exceeded(rules, "a")).toBeUndefined();
    expect(outages.length).toBe(1);
    await limiter.close();
  });
});
