/**
 * Per-IP request limits with fixed-window counters (the `limits` library's default strategy, which the upstream
 * ratings server uses): one counter per rule, client bucket and window; a request is refused when any of its rules'
 * counters passes the rule's limit. A client bucket is an IPv4 address or an IPv6 /64 (subgraphs/shared/net/
 * client-bucket.ts), so a host cannot get fresh counters by taking other addresses of its /64. Every listener counts
 * through `RateLimiter.exceeded`, so the grouping holds on all of them. A client can get up to twice a limit across a window boundary, which these
 * abuse limits accept in exchange for one counter per key.
 *
 * Counters live in memory (one process) or in Redis (several shim replicas share them; `config.redisUrl`). One
 * request increments all its counters in one atomic step: one Lua script, one round trip.
 *
 * Redis being down must not take the API down with it: the limiter then lets requests through and reports the
 * outage once until Redis answers again.
 */
import { Redis } from "ioredis";
import { clientBucket } from "../subgraphs/shared/net/client-bucket.js";
import type { PreparedResponse } from "./errors/table.js";

/** One per-IP counter: the REST routes and the GraphQL root fields share counters by name. */
export interface CountedRule {
  /** Counter name, e.g. `verifyReadPerIp`. */
  readonly name: string;
  /** Requests allowed per window and client bucket (IPv4 address or IPv6 /64). */
  readonly limit: number;
}

export interface RateLimitRule extends CountedRule {
  /** The 429 of the rule's area. */
  readonly rejection: PreparedResponse;
}

export interface CounterStore {
  /** Increments every key of `window` and returns the new counts in the same order. */
  increment(window: number, keys: readonly string[], windowMs: number): Promise<readonly number[]>;
  /** The same done synchronously, for a store that can (memory): a request then waits for no promise. */
  incrementNow?(window: number, keys: readonly string[]): readonly number[];
  close(): Promise<void>;
}

export class RateLimiter {
  constructor(
    private readonly store: CounterStore,
    readonly windowMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Counts the request against every rule (a rule listed twice counts twice) in the client IP's bucket; returns the
   * first rule it exceeds, if any.
   */
  async exceeded<Rule extends CountedRule>(rules: readonly Rule[], clientIp: string): Promise<Rule | undefined> {
    const counted = this.exceededNow(rules, clientIp);
    if (counted !== NOT_COUNTED) return counted;
    const keys = keysOf(rules, clientIp);
    return firstExceeded(rules, await this.store.increment(Math.floor(this.now() / this.windowMs), keys, this.windowMs));
  }

  /**
   * `exceeded` without a promise when the store counts synchronously (memory); `NOT_COUNTED` (nothing counted) when
   * it cannot, and the caller then awaits `exceeded`.
   */
  exceededNow<Rule extends CountedRule>(rules: readonly Rule[], clientIp: string): Rule | undefined | typeof NOT_COUNTED {
    if (this.store.incrementNow === undefined) return NOT_COUNTED;
    return firstExceeded(rules, this.store.incrementNow(Math.floor(this.now() / this.windowMs), keysOf(rules, clientIp)));
  }

  close(): Promise<void> {
    return this.store.close();
  }
}

/** What `exceededNow` answers when its store counts asynchronously: nothing was counted. */
export const NOT_COUNTED = Symbol("not counted");

function keysOf(rules: readonly CountedRule[], clientIp: string): string[] {
  const bucket = clientBucket(clientIp);
  return rules.map((rule) => `${rule.name}:${bucket}`);
}

function firstExceeded<Rule extends CountedRule>(rules: readonly Rule[], counts: readonly number[]): Rule | undefined {
  for (let i = 0; i < rules.length; i++) {
    if (counts[i]! > rules[i]!.limit) return rules[i];
  }
  return undefined;
}

/** Counters of the current window only: a new window drops the whole map, so nothing needs sweeping. */
export class MemoryCounterStore implements CounterStore {
  private window = -1;
  private counts = new Map<string, number>();

  async increment(window: number, keys: readonly string[]): Promise<readonly number[]> {
    return this.incrementNow(window, keys);
  }

  incrementNow(window: number, keys: readonly string[]): readonly number[] {
    if (window !== this.window) {
      this.window = window;
      this.counts = new Map();
    }
    return keys.map((key) => {
      const count = (this.counts.get(key) ?? 0) + 1;
      this.counts.set(key, count);
      return count;
    });
  }

  async close(): Promise<void> {}
}

/** INCR each key; the first increment of a window's key sets its expiry, so old windows vanish by themselves. */
const INCREMENT_SCRIPT = `
local counts = {}
for i, key in ipairs(KEYS) do
  local count = redis.call('INCR', key)
  if count == 1 then redis.call('PEXPIRE', key, ARGV[1]) end
  counts[i] = count
end
return counts`;

interface RedisWithIncrement extends Redis {
  shimIncrementCounters(keyCount: number, ...keysAndArgs: Array<string | number>): Promise<number[]>;
}

export interface RedisCounterStoreOptions {
  /** Key prefix, so tests and deployments can share one Redis. */
  keyPrefix?: string;
  /** A counter call slower than this counts as an outage (milliseconds). */
  commandTimeoutMs?: number;
  /** Called once per outage with the error's name (never its message, which may carry the URL). */
  onOutage?: (errorName: string) => void;
}

export class RedisCounterStore implements CounterStore {
  private readonly redis: RedisWithIncrement;
  private readonly keyPrefix: string;
  private readonly onOutage: (errorName: string) => void;
  private inOutage = false;

  constructor(redisUrl: string, options: RedisCounterStoreOptions = {}) {
    this.keyPrefix = options.keyPrefix ?? "rest-shim:rate:";
    this.onOutage = options.onOutage ?? (() => {});
    this.redis = new Redis(redisUrl, {
      // Counter calls wait for a connection being made (startup) but not across reconnects, and never for long.
      maxRetriesPerRequest: 0,
      commandTimeout: options.commandTimeoutMs ?? 250,
    }) as RedisWithIncrement;
    this.redis.defineCommand("shimIncrementCounters", { lua: INCREMENT_SCRIPT });
    this.redis.on("error", (error: Error) => this.reportOutage(error));
  }

  async increment(window: number, keys: readonly string[], windowMs: number): Promise<readonly number[]> {
    const redisKeys = keys.map((key) => `${this.keyPrefix}${window}:${key}`);
    try {
      const counts = await this.redis.shimIncrementCounters(redisKeys.length, ...redisKeys, windowMs);
      this.inOutage = false;
      return counts;
    } catch (error) {
      this.reportOutage(error);
      return keys.map(() => 0);
    }
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }

  private reportOutage(error: unknown): void {
    if (this.inOutage) return;
    this.inOutage = true;
    this.onOutage(error instanceof Error ? error.name : "Error");
  }
}

/** Memory counters for one process; Redis counters when `redisUrl` is set, shared by every shim replica. */
export function createRateLimiter(
  config: { redisUrl?: string; redisKeyPrefix?: string; rateLimits: { windowMs: number } },
  onOutage?: (errorName: string) => void,
  /** Milliseconds since the epoch that place a request in its window (tests inject a clock). */
  now: () => number = Date.now,
): RateLimiter {
  const store = config.redisUrl
    ? new RedisCounterStore(config.redisUrl, { onOutage, keyPrefix: config.redisKeyPrefix })
    : new MemoryCounterStore();
  return new RateLimiter(store, config.rateLimits.windowMs, now);
}
