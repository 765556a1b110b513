/**
 * Settings of the markets subgraph and its REST routes (document 3). Every setting is documented in the README's
 * configuration table.
 */
import { ConfigError, int, list, type Env } from "./env.js";

export type IdentityVerificationMode = "required" | "off";

export interface MarketsConfig {
  /**
   * MACHINE_IDENTITY_VERIFICATION (public notes 2.1's identity-verification switch): `required` (production default)
   * makes machine writes carry the machine's authority (a machine session, or an identityProof where a record is
   * created or bound); `off` binds an identityRef that resolves on chain without one and asks no authority
   * (development only: refused on a non-loopback HOST).
   */
  identityVerification: IdentityVerificationMode;
  /** Lifetime of a machine identity challenge (1..600 s). */
  identityChallengeTtlSeconds: number;
  /** Period of the job deleting identity challenges that expired more than `identityCleanupGraceSeconds` ago (0: no timer). */
  identityCleanupIntervalMs: number;
  identityCleanupGraceSeconds: number;
  /**
   * 32-byte AES-256-GCM key (64 hex characters) for runtime-endpoint auth tokens at rest (MARKETS_SECRETS_KEY); dev
   * default fixed and documented, so refused on a non-loopback HOST (gateway/network-guard.ts). Unset in production:
   * storing an authToken answers SERVICE_UNAVAILABLE.
   */
  secretsKey?: Buffer;
  /** Largest leaseSeconds a heartbeat may ask for. */
  maxLeaseSeconds: number;
  /** Most endpoints one heartbeat may report. */
  maxHeartbeatEndpoints: number;
  /**
   * AGENT_PAIRING_VERIFICATION (the pairing switch, like the identity one): `required` (production default) makes
   * pairing create and session rotation carry an agentProof signed by agentAddress; `off` pairs without one
   * (development only: refused on a non-loopback HOST).
   */
  pairingVerification: IdentityVerificationMode;
  /** Lifetime of a pairing challenge (AGENT_PAIRING_CHALLENGE_TTL_SECONDS, 1..600 s, default 300). */
  pairingChallengeTtlSeconds: number;
  /** Lifetime of a pairing session token (AGENT_PAIRING_TOKEN_TTL_SECONDS, 60..86400 s, default 3600 = 1 h). */
  pairingTokenTtlSeconds: number;
  /**
   * MARKETS_PAIRING_JWT_SECRETS: comma-separated HS256 secrets, each at least 32 characters; the first signs, all
   * verify (rotation). Empty: the dev secret generated into `<DATA_DIR>/markets-pairing-jwt.secret` (0600), refused
   * on a non-loopback HOST like the other dev credentials (gateway/network-guard.ts).
   */
  pairingJwtSecrets: string[];
  /** Lifetime of a machine session token (MACHINE_SESSION_TTL_SECONDS, 60..86400 s, default 3600 = 1 h). */
  machineSessionTtlSeconds: number;
  /** Lifetime of a stream chunk delivery token (STREAM_DELIVERY_TOKEN_TTL_SECONDS, 30..86400 s, default 900). */
  deliveryTokenTtlSeconds: number;
  /**
   * MARKETS_API_KEYS: comma-separated platform keys, each at least 16 characters (several at once for rotation).
   * When set, every request on the markets listener needs one in `x-api-key` (public notes 2.1; 401 AUTH_REQUIRED
   * otherwise). Empty (default): no platform key, as the hosted API without its API-auth switch.
   */
  apiKeys: string[];
}

/** Dev-only secrets key: documented, so never a secret. */
export const DEV_MARKETS_SECRETS_KEY = "6d61726b6574732d6465762d6b65792d6d61726b6574732d6465762d6b657921";

function secretsKey(raw: string | undefined, devMode: boolean): Buffer | undefined {
  const hex = raw || (devMode ? DEV_MARKETS_SECRETS_KEY : undefined);
  if (hex === undefined) return undefined;
  if (!/^[0-9a-fA-F]{64}$/.test(hex)) throw new ConfigError("MARKETS_SECRETS_KEY must be 64 hex characters (32 bytes)");
  return Buffer.from(hex, "hex");
}

export function loadMarketsConfig(env: Env): MarketsConfig {
  const devMode = !env.CHAIN_RPC_URL;
  const mode = env.MACHINE_IDENTITY_VERIFICATION || "required";
  if (mode !== "required" && mode !== "off") throw new ConfigError("MACHINE_IDENTITY_VERIFICATION must be `required` or `off`");
  const ttl = int(env, "MACHINE_IDENTITY_CHALLENGE_TTL_SECONDS", 300);
  if (ttl < 1 || ttl > 600) throw new ConfigError("MACHINE_IDENTITY_CHALLENGE_TTL_SECONDS must be 1..600");
  const maxLease = int(env, "MACHINE_AGENT_MAX_LEASE_SECONDS", 86_400);
  if (maxLease < 1) throw new ConfigError("MACHINE_AGENT_MAX_LEASE_SECONDS must be 1 or more");
  const pairing = env.AGENT_PAIRING_VERIFICATION || "required";
  if (pairing !== "required" && pairing !== "off") throw new ConfigError("AGENT_PAIRING_VERIFICATION must be `required` or `off`");
  const pairingTtl = int(env, "AGENT_PAIRING_CHALLENGE_TTL_SECONDS", 300);
  if (pairingTtl < 1 || pairingTtl > 600) throw new ConfigError("AGENT_PAIRING_CHALLENGE_TTL_SECONDS must be 1..600");
  const tokenTtl = int(env, "AGENT_PAIRING_TOKEN_TTL_SECONDS", 3600);
  if (tokenTtl < 60 || tokenTtl > 86_400) throw new ConfigError("AGENT_PAIRING_TOKEN_TTL_SECONDS must be 60..86400");
  const secrets = (env.MARKETS_PAIRING_JWT_SECRETS ?? "").split(",").map((s) => s.trim()).filter((s) => s.length > 0);
  if (secrets.some((s) => s.length < 32)) throw new ConfigError("MARKETS_PAIRING_JWT_SECRETS: each secret needs at least 32 characters");
  const sessionTtl = int(env, "MACHINE_SESSION_TTL_SECONDS", 3600);
  if (sessionTtl < 60 || sessionTtl > 86_400) throw new ConfigError("MACHINE_SESSION_TTL_SECONDS must be 60..86400");
  const apiKeys = list(env.MARKETS_API_KEYS);
  if (apiKeys.some((key) => key.length < 16)) throw new ConfigError("MARKETS_API_KEYS: each key needs at least 16 characters");
  const deliveryTtl = int(env, "STREAM_DELIVERY_TOKEN_TTL_SECONDS", 900);
  if (deliveryTtl < 30 || deliveryTtl > 86_400) throw new ConfigError("STREAM_DELIVERY_TOKEN_TTL_SECONDS must be 30..86400");
  return {
    apiKeys,
    deliveryTokenTtlSeconds: deliveryTtl,
    machineSessionTtlSeconds: sessionTtl,
    pairingVerification: pairing,
    pairingChallengeTtlSeconds: pairingTtl,
    pairingTokenTtlSeconds: tokenTtl,
    pairingJwtSecrets: secrets,
    identityVerification: mode,
    identityChallengeTtlSeconds: ttl,
    identityCleanupIntervalMs: Math.max(0, int(env, "MACHINE_IDENTITY_CLEANUP_INTERVAL_MS", 60_000)),
    identityCleanupGraceSeconds: Math.max(0, int(env, "MACHINE_IDENTITY_CLEANUP_GRACE_SECONDS", 3600)),
    secretsKey: secretsKey(env.MARKETS_SECRETS_KEY, devMode),
    maxLeaseSeconds: maxLease,
    maxHeartbeatEndpoints: Math.max(1, int(env, "MACHINE_AGENT_MAX_HEARTBEAT_ENDPOINTS", 32)),
  };
}
