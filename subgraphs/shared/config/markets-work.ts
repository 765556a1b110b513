/**
 * Settings of the markets catalogue, search and task execution (document 3). Every setting is
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
}

export function loadMarketsWorkConfig(env: Env): MarketsWorkConfig {
  const quoteTtlSeconds = int(env, "MARKETS_QUOTE_TTL_SECONDS", 120);
  if (quoteTtlSeconds < 1 || quoteTtlSeconds > 3600) throw new ConfigError("MARKETS_QUOTE_TTL_SECONDS must be 1..3600");
  const providerTimeoutMs = int(env, "MARKETS_PROVIDER_TIMEOUT_MS", 10_000);
  if (providerTimeoutMs < 100 || providerTimeoutMs > 120_000) throw new ConfigError("MARKETS_PROVIDER_TIMEOUT_MS must be 100..120000");
  const demoProviderPort = int(env, "DEMO_PROVIDER_PORT", 8300);
  if (demoProviderPort < 0 || demoProviderPort > 65_535) throw new ConfigError("DEMO_PROVIDER_PORT must be 0..65535");
  return { quoteTtlSeconds, providerTimeoutMs, demoProviderPort };
}
