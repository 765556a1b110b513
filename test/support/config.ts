/**
 * Configuration of in-process test listeners: `testConfig()` is the REST shim's and the gateway's configuration on
 * free ports, with the test onboarding tokens and per-IP limits no test meets unless it sets small ones.
 */
import { loadConfig, type PlatformConfig } from "../../subgraphs/shared/config.js";
import { ONBOARDING_TOKEN, OTHER_ONBOARDING_TOKEN } from "./http.js";

/** Per-IP limits no test meets unless it asks for small ones (every `RATE_LIMIT_*_PER_IP` setting). */
export const GENEROUS_LIMITS = {
  RATE_LIMIT_CHALLENGE_PER_IP: "100000",
  RATE_LIMIT_EVIDENCE_PER_IP: "100000",
  RATE_LIMIT_VERIFY_API_PER_IP: "100000",
  RATE_LIMIT_VERIFY_READ_PER_IP: "100000",
  RATE_LIMIT_RATINGS_PER_IP: "100000",
  RATE_LIMIT_MARKETS_PER_IP: "100000",
  RATE_LIMIT_DOCS_PER_IP: "100000",
} as const;

/** A listener configuration on free loopback ports; `env` overrides any setting. */
export function testConfig(env: Record<string, string> = {}): PlatformConfig {
  return loadConfig({
    HOST: "127.0.0.1",
    HTTP_PORT: "0",
    MARKETS_PORT: "0",
    MCR2_PORT: "0",
    ONBOARDING_TOKENS: `${ONBOARDING_TOKEN},${OTHER_ONBOARDING_TOKEN}`,
    LOG_LEVEL: "silent",
    ...GENEROUS_LIMITS,
    ...env,
  });
}
