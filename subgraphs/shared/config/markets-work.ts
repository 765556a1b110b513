/**
 * Settings of the markets catalogue, search and task execution, and of the lifecycle job that expires unpaid stream
 * orders and purchases and recovers executions past their deadline (document 3). Every setting is
 * documented in the README's configuration table.
 */
import { ConfigError, int, type Env } from "./env.js";

export interface MarketsWorkConfig {
  /** MARKETS_QUOTE_TTL_SECONDS: how long a search's quotes stay valid (1..3600, default 120). */
  quoteTtlSeconds: number;
  /** MARKETS_PROVIDER_TIMEOUT_MS: deadline of one native provider call, connect to last byte (100..120000, default 10000). */
  providerTimeoutMs: number;
  /** DEMO_PROVIDER_PORT: port of the demo provider role `all` starts with the embedded demo (default 8300; 0: any free). */
  demoProviderPort: number;
  /** STREAM_ORDER_PAYMENT_TTL_SECONDS: how long a stream order may stay `payment_pending` before it expires (60..604800, default 3600). */
  streamOrderPaymentTtlSeconds: number;
  /** STREAM_PURCHASE_PAYMENT_TTL_SECONDS: the same for a purchase, counted from its creation (60..604800, default 3600). */
  streamPurchasePaymentTtlSeconds: number;
  /**
   * MARKETS_EXECUTION_DEADLINE_SECONDS: how long a task or market order may stay `executing` before it is recovered
   * (30..86400, default 600); at least MARKETS_PROVIDER_TIMEOUT_MS + 30 s, so that a live execution is never recovered.
   */
  executionDeadlineSeconds: number;
  /** MARKETS_LIFECYCLE_SWEEP_INTERVAL_MS: period of the expiry and recovery job (0: no timer; default 60000). */
  lifecycleSweepIntervalMs: number;
}

export function loadMarketsWorkConfig(env: Env): MarketsWorkConfig {
  const quoteTtlSeconds = int(env, "MARKETS_QUOTE_TTL_SECONDS", 120);
  if (quoteTtlSeconds < 1 || quoteTtlSeconds > 3600) throw new ConfigError("MARKETS_QUOTE_TTL_SECONDS must be 1..3600");
  const providerTimeoutMs = int(env, "MARKETS_PROVIDER_TIMEOUT_MS", 10_000);
  if (providerTimeoutMs < 100 || providerTimeoutMs > 120_000) throw new ConfigError("MARKETS_PROVIDER_TIMEOUT_MS must be 100..120000");
  const demoProviderPort = int(env, "DEMO_PROVIDER_PORT", 8300);
  if (demoProviderPort < 0 || demoProviderPort > 65_535) throw new ConfigError("DEMO_PROVIDER_PORT must be 0..65535");
  const ttl = (name: string) => {
    const value = int(env, name, 3600);
    if (value < 60 || value > 604_800) throw new ConfigError(`${name} must be 60..604800`);
    return value;
  };
  const executionDeadlineSeconds = int(env, "MARKETS_EXECUTION_DEADLINE_SECONDS", 600);
  if (executionDeadlineSeconds < 30 || executionDeadlineSeconds > 86_400) throw new ConfigError("MARKETS_EXECUTION_DEADLINE_SECONDS must be 30..86400");
  if (executionDeadlineSeconds * 1000 < providerTimeoutMs + 30_000) {
    throw new ConfigError("MARKETS_EXECUTION_DEADLINE_SECONDS must be at least MARKETS_PROVIDER_TIMEOUT_MS + 30 s");
  }
  const lifecycleSweepIntervalMs = Math.max(0, int(env, "MARKETS_LIFECYCLE_SWEEP_INTERVAL_MS", 60_000));
  return {
    quoteTtlSeconds,
    providerTimeoutMs,
    demoProviderPort,
    streamOrderPaymentTtlSeconds: ttl("STREAM_ORDER_PAYMENT_TTL_SECONDS"),
    streamPurchasePaymentTtlSeconds: ttl("STREAM_PURCHASE_PAYMENT_TTL_SECONDS"),
    executionDeadlineSeconds,
    lifecycleSweepIntervalMs,
  };
}
