/**
 * The dev credentials (the documented onboarding and operator tokens, the demo vendor CA whose keys derive from a
 * public seed, anvil's well-known deployer key as admin and attester, the documented TOTP encryption key) are fine on 127.0.0.1 and dangerous anywhere
 * else: anyone reaching the listeners could mint trusted chip certificates and act as the operator. So a process
 * whose HOST is not a loopback address refuses to start until the credentials it would use are configured
 * explicitly, naming each setting that is missing. `ALLOW_DEMO_ON_NETWORK=1` lets the demo run on a private network
 * anyway, and says so loudly in the log.
 */
import { isIP } from "node:net";
import { DEV_ONBOARDING_TOKEN, DEV_OPERATOR_TOKEN, type PlatformConfig } from "../subgraphs/shared/config.js";
import { DEV_ESCROW_OPERATOR_KEY } from "../subgraphs/shared/config/payments.js";
import { DEV_TOTP_KEY } from "../subgraphs/shared/config/ratings.js";
import type { Role } from "./platform.js";

export class UnsafeExposureError extends Error {
  constructor(host: string, missing: string[]) {
    super(
      `HOST=${host} is not a loopback address, and the dev credentials would be active there. Set ${missing.join(", ")} ` +
        "(docs/operations.md, \"Running on a public address\"), or set ALLOW_DEMO_ON_NETWORK=1 to run the demo on a " +
        "private network you trust.",
    );
    this.name = "UnsafeExposureError";
  }
}

export function isLoopback(host: string): boolean {
  if (host === "localhost") return true;
  if (isIP(host) === 4) return host.startsWith("127.");
  return host === "::1" || host === "::ffff:127.0.0.1";
}

/** The settings a role would otherwise fill with dev credentials, each named by its variable. */
function missingCredentials(config: PlatformConfig, role: Role): string[] {
  const usesVerify = role.kind === "all" || (role.kind === "subgraph" && role.name === "verify");
  const checksTokens = usesVerify || role.kind === "rest";
  const explicit = (tokens: readonly string[], devToken: string) => tokens.length > 0 && !tokens.includes(devToken);
  const missing: string[] = [];
  if (checksTokens && !explicit(config.onboardingTokens, DEV_ONBOARDING_TOKEN)) missing.push("ONBOARDING_TOKENS");
  if (usesVerify && !explicit(config.operatorTokens, DEV_OPERATOR_TOKEN)) missing.push("OPERATOR_TOKENS");
  if (usesVerify && !config.vendorTrustBundlePath) missing.push("VENDOR_TRUST_BUNDLE");
  // The faucet's TOTP secrets would be encrypted with a key printed in the source.
  const usesRatings = role.kind === "all" || (role.kind === "subgraph" && role.name === "ratings");
  if (usesRatings && config.ratings.faucet.totpKey?.equals(Buffer.from(DEV_TOTP_KEY, "hex"))) missing.push("FAUCET_TOTP_KEY");
  const usesMarkets = role.kind === "all" || (role.kind === "subgraph" && role.name === "markets");
  // The pairing tokens' HS256 secret would be the one generated into the data dir.
  if (usesMarkets && config.markets.pairingJwtSecrets.length === 0) missing.push("MARKETS_PAIRING_JWT_SECRETS");
  // The escrow operator (payments) would be anvil's public account 1: anyone could release every escrow.
  if (usesMarkets && config.payments.escrowOperatorKey === DEV_ESCROW_OPERATOR_KEY) missing.push("ESCROW_OPERATOR_KEY");
  // Only the embedded chain is deployed by this process; its admin and attester is the operator key when set.
  if (role.kind === "all" && !config.chain.rpcUrl && !config.chain.operatorKey) missing.push("OPERATOR_PRIVATE_KEY");
  return missing;
}

/** Throws UnsafeExposureError, or returns a warning to log (opt-in), or nothing when the address is safe. */
export function checkExposure(config: PlatformConfig, role: Role): string | undefined {
  if (isLoopback(config.host)) return undefined;
  const missing = missingCredentials(config, role);
  if (missing.length === 0) return undefined;
  if (!config.allowDemoOnNetwork) throw new UnsafeExposureError(config.host, missing);
  return (
    `WARNING: ALLOW_DEMO_ON_NETWORK=1: listening on ${config.host} with dev credentials (${missing.join(", ")} not set). ` +
    "Anyone who can reach this address can use the documented tokens and mint trusted chip certificates. " +
    "Use this on a private network only."
  );
}
