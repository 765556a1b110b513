/**
 * Settings of the ratings subgraph and its REST routes (document 2): MCR caching and FX, the monetization freshness
 * window, the 2.0 deployment's listener and ownership index, the second-chain binding lookup, and the faucet with its
 * two-factor enrolment. Every setting is documented in the README's configuration table.
 */
import { ConfigError, int, type Env } from "./env.js";

export interface FxConfig {
  /** `fixed` (the embedded table of docs/mcr-scoring.md, valid at any time) or `file:<path>` (dated rates). */
  source: string;
  /** A dated rate older than this at the event's time is stale: the event is `fx_unavailable`. */
  maxAgeSeconds: number;
}

export interface MonetizationConfig {
  /** A signed timestamp may be at most this far in the past (spec default 300). */
  maxAgeSeconds: number;
  /** ... and at most this far in the future (spec default 30). */
  maxFutureSeconds: number;
}

export interface V2DeploymentConfig {
  /** Listener of the 2.0 deployment (`{mcr2_url}`), served by roles `all` and `rest`. */
  port: number;
  /** Period of the ownership-index sync job (0: no timer; tests run it on demand). */
  indexSyncMs: number;
  /** Blocks read per sync step. */
  indexBatchBlocks: number;
  /** The operator route answers 503 while the index is more than this many blocks behind the finalized block. */
  indexMaxLagBlocks: number;
}

export interface AltchainConfig {
  /** JSON-RPC of the second chain; unset: the embedded binding node (role `all`, dev mode). */
  rpcUrl?: string;
  /** Port of the embedded binding node. */
  port: number;
  /** Base58 ID of the binding registry program. */
  programId: string;
  /** Deadline of the one `getAccountInfo` read. */
  timeoutMs: number;
  /** How long `bound`, `not_bound` and `binding_revoked` outcomes are kept (spec: 60 s). */
  cacheTtlSeconds: number;
}

export interface FaucetConfig {
  /** Key of the funding account; dev default: anvil's account 9. Unset in production: funding answers 503. */
  privateKey?: string;
  /** 32-byte AES-256-GCM key (64 hex characters) for TOTP secrets at rest; dev default fixed. Unset: 2FA answers 503. */
  totpKey?: Buffer;
  /** `issuer` of the otpauth URI. */
  issuer: string;
  /** The `chainId` value a fund request must name (besides the decimal chain ID). */
  chainName: string;
  /** Wei sent per funding. */
  fundAmountWei: bigint;
  /** A wallet holding at least this much is `skipped`. */
  minBalanceWei: bigint;
  /** An enrolment not confirmed within this time expires (the QR code's lifetime). */
  setupTtlSeconds: number;
  /** Consecutive bad codes from one client bucket (IPv4 address, IPv6 /64) before that bucket is locked out. */
  maxAttempts: number;
  /** Bad codes from all clients, since the last good code, before the owner is locked out everywhere. */
  maxAttemptsPerOwner: number;
  lockoutSeconds: number;
  /** Fund requests per client IP per rolling hour. */
  perIpPerHour: number;
  /** Fundings per owner per UTC day. */
  perOwnerPerDay: number;
  /** Fundings per target wallet per UTC day. */
  perWalletPerDay: number;
}

export interface RatingsConfig {
  /** MCR_CACHE_TTL seconds; 0 turns the per-machine MCR cache off. */
  mcrCacheTtlSeconds: number;
  fx: FxConfig;
  monetization: MonetizationConfig;
  v2: V2DeploymentConfig;
  altchain: AltchainConfig;
  faucet: FaucetConfig;
}

/** The binding registry program of the public notes (second-chain mainnet). */
export const DEFAULT_BINDING_PROGRAM = "GrsCoPkeLUAoXjuwPfCcuch77Chco1Gx95zCCQNYGqG6";
/**
 * anvil's default account 9 (mnemonic "test test ... junk"): funded at genesis, used by nothing else. Public, so
 * refused on a non-loopback HOST (gateway/network-guard.ts).
 */
export const DEV_FAUCET_KEY = "0x2a871d0798f97d79848a013d4936a73bf4cc922c825d33c1cf7073dff6d409c6";
/** Dev-only TOTP encryption key: documented, so never a secret. */
export const DEV_TOTP_KEY = "d3f0d3f0d3f0d3f0d3f0d3f0d3f0d3f0d3f0d3f0d3f0d3f0d3f0d3f0d3f0d3f0";

function wei(env: Env, name: string, fallback: bigint): bigint {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(`${name} must be a non-negative integer (wei)`);
  return BigInt(raw);
}

function nonNegative(env: Env, name: string, fallback: number): number {
  const value = int(env, name, fallback);
  if (value < 0) throw new ConfigError(`${name} must be 0 or more`);
  return value;
}

function totpKey(raw: string | undefined, devMode: boolean): Buffer | undefined {
  const hex = raw || (devMode ? DEV_TOTP_KEY : undefined);
  if (hex === undefined) return undefined;
  if (!/^[0-9a-fA-F]{64}$/.test(hex)) throw new ConfigError("FAUCET_TOTP_KEY must be 64 hex characters (32 bytes)");
  return Buffer.from(hex, "hex");
}

function fxSource(raw: string | undefined): string {
  const source = raw || "fixed";
  if (source !== "fixed" && !/^file:.+/.test(source)) throw new ConfigError("MCR_FX_SOURCE must be `fixed` or `file:<path>`");
  return source;
}

export function loadRatingsConfig(env: Env): RatingsConfig {
  // Dev mode = embedded chain, as in config.ts: only there do the documented dev keys apply.
  const devMode = !env.CHAIN_RPC_URL;
  const namespace = env.SERVICE_NAMESPACE || "service";
  const maxAttempts = Math.max(1, int(env, "FAUCET_2FA_MAX_ATTEMPTS", 5));
  return {
    mcrCacheTtlSeconds: nonNegative(env, "MCR_CACHE_TTL", 3600),
    fx: { source: fxSource(env.MCR_FX_SOURCE), maxAgeSeconds: nonNegative(env, "MCR_FX_MAX_AGE_SECONDS", 172_800) },
    monetization: {
      maxAgeSeconds: nonNegative(env, "MONETIZATION_MAX_AGE_SECONDS", 300),
      maxFutureSeconds: nonNegative(env, "MONETIZATION_MAX_FUTURE_SECONDS", 30),
    },
    v2: {
      port: int(env, "MCR2_PORT", 8200),
      indexSyncMs: nonNegative(env, "MCR2_INDEX_SYNC_MS", 1000),
      indexBatchBlocks: Math.max(1, int(env, "MCR2_INDEX_BATCH_BLOCKS", 2000)),
      indexMaxLagBlocks: nonNegative(env, "MCR2_INDEX_MAX_LAG_BLOCKS", 5),
    },
    altchain: {
      rpcUrl: env.ALTCHAIN_RPC_URL || undefined,
      port: int(env, "ALTCHAIN_RPC_PORT", 8899),
      programId: env.ALTCHAIN_BINDING_PROGRAM || DEFAULT_BINDING_PROGRAM,
      timeoutMs: Math.max(1, int(env, "ALTCHAIN_TIMEOUT_MS", 3000)),
      cacheTtlSeconds: nonNegative(env, "ALTCHAIN_CACHE_TTL", 60),
    },
    faucet: {
      privateKey: env.FAUCET_PRIVATE_KEY || (devMode ? DEV_FAUCET_KEY : undefined),
      totpKey: totpKey(env.FAUCET_TOTP_KEY, devMode),
      issuer: env.FAUCET_TOTP_ISSUER || `${namespace} faucet`,
      chainName: env.FAUCET_CHAIN_NAME || namespace,
      fundAmountWei: wei(env, "FAUCET_FUND_AMOUNT_WEI", 100_000_000_000_000_000n),
      minBalanceWei: wei(env, "FAUCET_MIN_BALANCE_WEI", 50_000_000_000_000_000n),
      setupTtlSeconds: Math.max(1, int(env, "FAUCET_2FA_SETUP_TTL_SECONDS", 120)),
      maxAttempts,
      // Never below the per-client limit: one client alone cannot lock the owner everywhere.
      maxAttemptsPerOwner: Math.max(maxAttempts, int(env, "FAUCET_2FA_MAX_ATTEMPTS_PER_OWNER", 50)),
      lockoutSeconds: nonNegative(env, "FAUCET_2FA_LOCKOUT_SECONDS", 900),
      perIpPerHour: nonNegative(env, "FAUCET_FUND_PER_IP_PER_HOUR", 10),
      perOwnerPerDay: nonNegative(env, "FAUCET_FUND_PER_OWNER_PER_DAY", 5),
      perWalletPerDay: nonNegative(env, "FAUCET_FUND_PER_WALLET_PER_DAY", 2),
    },
  };
}
