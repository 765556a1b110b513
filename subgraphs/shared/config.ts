/**
 * Platform configuration, read once from the environment.
 *
 * Every setting has an embedded default so `npm start` works on a fresh machine. `loadConfig(overrides)` lets tests
 * and the process entry build a config without touching `process.env`.
 */
import path from "node:path";
import { ConfigError, int, list, logLevel, off, type Env } from "./config/env.js";
import { loadGraphQLLimits, loadListenerLimits, type GraphQLLimits, type ListenerLimits } from "./config/edges.js";
import { loadMarketsConfig, type MarketsConfig } from "./config/markets.js";
import { loadMarketsWorkConfig, type MarketsWorkConfig } from "./config/markets-work.js";
import { loadPaymentsConfig, type PaymentsConfig } from "./config/payments.js";
import { loadRatingsConfig, type RatingsConfig } from "./config/ratings.js";
import { loadStreamP2pConfig, type StreamP2pConfig } from "./config/stream-p2p.js";
import { AddressPolicy } from "./net/address-policy.js";

export { ConfigError } from "./config/env.js";
export type { GraphQLLimits, ListenerLimits } from "./config/edges.js";
export type { MarketsConfig } from "./config/markets.js";
export type { MarketsWorkConfig } from "./config/markets-work.js";
export type { PaymentsConfig } from "./config/payments.js";
export type { RatingsConfig } from "./config/ratings.js";
export type { StreamP2pConfig } from "./config/stream-p2p.js";

export interface ServiceNamespace {
  /** DID method, e.g. `did:<method>:<machineId>` (spec stand-in: `service`). */
  didMethod: string;
  /** Prefix of verifier / protocol / schema identifiers (spec stand-in: `service.verify`). */
  verifier: string;
}

export interface ChipVendorProfile {
  /** Challenge and evidence `profile`, e.g. `vendor-chip-ca306/1`. */
  profile: string;
  /** Evidence `trustBundle`, e.g. `vendor-chip-ca306-roots/1`. */
  trustBundle: string;
}

export interface RateLimitConfig {
  /** Window length in milliseconds shared by every per-IP limit. */
  windowMs: number;
  /** Requests per window per IP on `POST /v1/verify/chip/challenge`. */
  challengePerIp: number;
  /** Requests per window per IP on `POST /v1/verify/chip/evidence`. */
  evidencePerIp: number;
  /** Requests per window per IP across every `/v1/verify/` route. */
  verifyApiPerIp: number;
  /** Requests per window per IP on `GET /v1/verify/machines/{id}` (public notes: 60/min). */
  verifyReadPerIp: number;
  /** Requests per window per IP on the ratings routes of document 2 (spec: 90/min). */
  ratingsPerIp: number;
  /** Requests per window per IP on the markets listener. */
  marketsPerIp: number;
  /** Requests per window per IP on the documentation paths: /openapi.json, /docs, /supergraph.graphql, /graphiql. */
  docsPerIp: number;
}

export interface VerifyLimits {
  /** Challenge lifetime in seconds (spec: at most 300). */
  challengeTtlSeconds: number;
  /** Open (issued, unexpired, unconsumed) challenges allowed per machine. */
  openChallengesPerMachine: number;
  /** Open challenges allowed in total. */
  openChallengesTotal: number;
  /** How long a submission may stay in `checking` before another request may take it over (seconds). */
  checkingLeaseSeconds: number;
  /** Expired unused challenges older than this many seconds past expiry are removed by the cleanup job. */
  cleanupGraceSeconds: number;
  /** Cleanup job period in milliseconds (0 disables the timer; tests call the job directly). */
  cleanupIntervalMs: number;
  /** Earliest wall-clock time the server accepts as valid (Unix seconds); see docs/verify-evidence.md. */
  clockFloorUnix: number;
  /** Accepted evidence not attested within this many seconds expires (no longer listed, no longer attestable). */
  evidenceTtlSeconds: number;
}

export interface ChainConfig {
  /** JSON-RPC URL; unset means: start the embedded anvil node. */
  rpcUrl?: string;
  /** Chain ID of the primary (home) chain. */
  chainId: number;
  /** Port of the embedded anvil node. */
  anvilPort: number;
  /** Deadline for one chain read in milliseconds. */
  requestTimeoutMs: number;
  /** How often the block watcher polls for a new head (milliseconds); caches are keyed by block. */
  pollIntervalMs: number;
  /** JSON-RPC requests one process has in flight at most (and keep-alive sockets to the node); more wait their turn. */
  maxInFlight: number;
  /** Contract addresses from the environment (`<NAME>_ADDRESS`), overriding the embedded deployment. */
  addresses: Partial<Record<ContractName, string>>;
  /** Private key used by the operator CLI and the embedded deployer. */
  operatorKey?: string;
}

export const CONTRACT_NAMES = [
  "MachineRegistry",
  "IdentityRegistry",
  "IdentityStaking",
  "EventRegistry",
  "MachineNFT",
  "DidRegistry",
  "AdminFlags",
  "AttestationRegistry",
  "TestStablecoin",
  "PaymentEscrow",
] as const;
export type ContractName = (typeof CONTRACT_NAMES)[number];

/** `MachineRegistry` -> `MACHINE_REGISTRY_ADDRESS`. */
export function addressEnvName(name: ContractName): string {
  return `${name.replace(/([a-z])([A-Z])/g, "$1_$2").toUpperCase()}_ADDRESS`;
}

export interface PlatformConfig {
  host: string;
  httpPort: number;
  marketsPort: number;
  graphqlPort: number;
  /**
   * The admin listener (GET /metrics, Prometheus): ADMIN_HOST (default loopback, never the public HOST) and
   * ADMIN_PORT (default 9464; 0 picks a free port; `off` disables it).
   */
  admin: { host: string; port: number | null };
  dataDir: string;
  /** PostgreSQL URL; unset means: embedded PGlite under `dataDir`. */
  databaseUrl?: string;
  redisUrl?: string;
  /** Prefix of the rate-limit counters' keys in Redis (deployments or test runs sharing one Redis). */
  redisKeyPrefix?: string;
  /**
   * Which proxies may name the client in X-Forwarded-For (Fastify's `trustProxy`): unset trusts none, so the client
   * IP is the socket address; `true`, a hop count, or comma-separated addresses/CIDRs of the load balancers.
   */
  trustProxy?: boolean | number | string;
  /** Accepted onboarding tokens (several at once for rotation). Dev mode default: `dev-onboarding-token`. */
  onboardingTokens: string[];
  /** Tokens of the service operator (evidence awaiting attestation). Dev mode default: `dev-operator-token`. */
  operatorTokens: string[];
  /** PEM bundle of pinned vendor roots and intermediates; unset means: the demo vendor CA (dev mode). */
  vendorTrustBundlePath?: string;
  namespace: ServiceNamespace;
  vendor: ChipVendorProfile;
  chain: ChainConfig;
  rateLimits: RateLimitConfig;
  verify: VerifyLimits;
  /**
   * Addresses or CIDRs the platform may call although they are in a blocked range (loopback, private, ...), for URLs
   * others chose (OUTBOUND_ALLOW_CIDRS; default none). See subgraphs/shared/net/outbound.ts.
   */
  outboundAllowCidrs: string[];
  /** Document 2: the ratings subgraph and its routes (config/ratings.ts). */
  ratings: RatingsConfig;
  /** Document 3: the markets subgraph and its routes (config/markets.ts). */
  markets: MarketsConfig;
  /** Document 3: catalogue, search and task execution (config/markets-work.ts). */
  marketsWork: MarketsWorkConfig;
  /** Document 3: on-chain payment rails (config/payments.ts). */
  payments: PaymentsConfig;
  /** Bounds of the seller's peer-to-peer delivery server, `cli stream serve` (config/stream-p2p.ts). */
  streamP2p: StreamP2pConfig;
  /** Remote subgraph URLs (`SUBGRAPH_<NAME>_URL`); a missing entry means in-process. */
  subgraphUrls: Partial<Record<"verify" | "ratings" | "markets", string>>;
  /** Port of the `subgraph <name>` role; unset: 4001, 4002, 4003 for verify, ratings, markets. */
  subgraphPort?: number;
  /** Gateway URL for the `rest` role. */
  gatewayUrl?: string;
  /** Seed the demo fixture when the chain is embedded. */
  seedDemo: boolean;
  /** `NODE_ENV=development`: GraphQL introspection on. Anything else is production (the process entry's default). */
  development: boolean;
  /** Timeouts and connection cap of every listener. */
  listeners: ListenerLimits;
  /** Body size and cost limits of the GraphQL listeners. */
  graphql: GraphQLLimits;
  /**
   * Split topology: the secret the roles share. A request carrying it comes from the platform's own previous hop
   * (rest -> gateway -> subgraph), whose client IP header is believed and whose per-IP limits were already counted.
   */
  internalToken?: string;
  /** Allows the public and trusting settings (gateway/network-guard.ts) on a non-loopback HOST. */
  allowDemoOnNetwork: boolean;
  /** How long a booting process waits for another one's migration lock before it gives up. */
  migrationLockTimeoutMs: number;
  /**
   * Deadlines of every interactive database transaction (Prisma's `maxWait` and `timeout`): how long one may wait to
   * start (for a pooled connection) and how long it may run, row-lock waits included. Past either it fails as a store
   * outage (503, retry). DB_TRANSACTION_MAX_WAIT_MS (default 2000) and DB_TRANSACTION_TIMEOUT_MS (default 5000).
   */
  transactionMaxWaitMs: number;
  transactionTimeoutMs: number;
  /** PostgreSQL: how long a query waits for a pooled connection or a new one (DB_CONNECT_TIMEOUT_MS, default 5000). */
  connectTimeoutMs: number;
  /** Log level: silent, error, info. */
  logLevel: "silent" | "error" | "info";
  /** One JSON log line per request on every listener (`LOG_REQUESTS=0`: none; other info lines stay). */
  logRequests: boolean;
  /** Per-request REST and GraphQL operation metrics (`REQUEST_METRICS=0`: not counted; chain and pool metrics stay). */
  requestMetrics: boolean;
  /**
   * Role `all`: the REST shim reuses a success answer of a route declared a function of chain state while the block
   * it was read at is still pinned (`SHIM_ANSWER_REUSE=0` runs every request through the gateway instead).
   */
  shimAnswerReuse: boolean;
}

function parseTrustProxy(raw: string | undefined): PlatformConfig["trustProxy"] {
  if (raw === undefined || raw === "" || raw === "false") return undefined;
  if (raw === "true") return true;
  if (/^\d+$/.test(raw)) return Number(raw);
  return raw;
}

function outboundAllowList(raw: string | undefined): string[] {
  const entries = list(raw);
  try {
    new AddressPolicy(entries);
  } catch {
    throw new ConfigError("OUTBOUND_ALLOW_CIDRS must be comma-separated IP addresses or CIDRs");
  }
  return entries;
}

export const DEV_ONBOARDING_TOKEN = "dev-onboarding-token";
export const DEV_OPERATOR_TOKEN = "dev-operator-token";

export function loadConfig(env: Env = process.env): PlatformConfig {
  const dataDir = path.resolve(env.DATA_DIR || ".data");
  // Dev mode = embedded chain: fixed, documented tokens so `npm start` works; production must configure its own.
  const devMode = !env.CHAIN_RPC_URL;
  const tokenList = (raw: string | undefined, devDefault: string) => {
    const tokens = list(raw);
    return tokens.length > 0 || !devMode ? tokens : [devDefault];
  };
  const addresses: ChainConfig["addresses"] = {};
  for (const name of CONTRACT_NAMES) {
    const value = env[addressEnvName(name)];
    if (value) addresses[name] = value;
  }
  const service = env.SERVICE_NAMESPACE || "service";
  const vendorWord = env.CHIP_VENDOR || "vendor-chip-ca306";
  const ttl = int(env, "VERIFY_CHALLENGE_TTL_SECONDS", 300);
  if (ttl < 1 || ttl > 300) throw new ConfigError("VERIFY_CHALLENGE_TTL_SECONDS must be 1..300");
  return {
    host: env.HOST || "127.0.0.1",
    httpPort: int(env, "HTTP_PORT", 8000),
    marketsPort: int(env, "MARKETS_PORT", 8100),
    graphqlPort: int(env, "GRAPHQL_PORT", 4000),
    admin: { host: env.ADMIN_HOST || "127.0.0.1", port: env.ADMIN_PORT === "off" ? null : int(env, "ADMIN_PORT", 9464) },
    dataDir,
    databaseUrl: env.DATABASE_URL || undefined,
    redisUrl: env.REDIS_URL || undefined,
    redisKeyPrefix: env.REDIS_KEY_PREFIX || undefined,
    trustProxy: parseTrustProxy(env.TRUST_PROXY),
    onboardingTokens: tokenList(env.ONBOARDING_TOKENS || env.ONBOARDING_TOKEN, DEV_ONBOARDING_TOKEN),
    operatorTokens: tokenList(env.OPERATOR_TOKENS, DEV_OPERATOR_TOKEN),
    vendorTrustBundlePath: env.VENDOR_TRUST_BUNDLE || undefined,
    namespace: { didMethod: service, verifier: `${service}.verify` },
    vendor: { profile: `${vendorWord}/1`, trustBundle: `${vendorWord}-roots/1` },
    chain: {
      rpcUrl: env.CHAIN_RPC_URL || undefined,
      chainId: int(env, "CHAIN_ID", 3338),
      anvilPort: int(env, "ANVIL_PORT", 8545),
      requestTimeoutMs: int(env, "CHAIN_TIMEOUT_MS", 3000),
      pollIntervalMs: int(env, "CHAIN_POLL_MS", 250),
      maxInFlight: int(env, "CHAIN_MAX_IN_FLIGHT", 32),
      addresses,
      operatorKey: env.OPERATOR_PRIVATE_KEY || undefined,
    },
    rateLimits: {
      windowMs: int(env, "RATE_LIMIT_WINDOW_MS", 60_000),
      challengePerIp: int(env, "RATE_LIMIT_CHALLENGE_PER_IP", 30),
      evidencePerIp: int(env, "RATE_LIMIT_EVIDENCE_PER_IP", 30),
      verifyApiPerIp: int(env, "RATE_LIMIT_VERIFY_API_PER_IP", 120),
      verifyReadPerIp: int(env, "RATE_LIMIT_VERIFY_READ_PER_IP", 60),
      ratingsPerIp: int(env, "RATE_LIMIT_RATINGS_PER_IP", 90),
      marketsPerIp: int(env, "RATE_LIMIT_MARKETS_PER_IP", 300),
      docsPerIp: int(env, "RATE_LIMIT_DOCS_PER_IP", 60),
    },
    verify: {
      challengeTtlSeconds: ttl,
      openChallengesPerMachine: int(env, "VERIFY_OPEN_CHALLENGES_PER_MACHINE", 5),
      openChallengesTotal: int(env, "VERIFY_OPEN_CHALLENGES_TOTAL", 10_000),
      checkingLeaseSeconds: int(env, "VERIFY_CHECKING_LEASE_SECONDS", 30),
      cleanupGraceSeconds: int(env, "VERIFY_CLEANUP_GRACE_SECONDS", 3600),
      cleanupIntervalMs: int(env, "VERIFY_CLEANUP_INTERVAL_MS", 60_000),
      clockFloorUnix: int(env, "VERIFY_CLOCK_FLOOR_UNIX", 1_767_225_600), // 2026-01-01T00:00:00Z
      evidenceTtlSeconds: int(env, "VERIFY_EVIDENCE_TTL_SECONDS", 7 * 86_400),
    },
    outboundAllowCidrs: outboundAllowList(env.OUTBOUND_ALLOW_CIDRS),
    ratings: loadRatingsConfig(env),
    markets: loadMarketsConfig(env),
    marketsWork: loadMarketsWorkConfig(env),
    payments: loadPaymentsConfig(env, int(env, "CHAIN_ID", 3338)),
    streamP2p: loadStreamP2pConfig(env),
    subgraphUrls: {
      verify: env.SUBGRAPH_VERIFY_URL || undefined,
      ratings: env.SUBGRAPH_RATINGS_URL || undefined,
      markets: env.SUBGRAPH_MARKETS_URL || undefined,
    },
    subgraphPort: env.SUBGRAPH_PORT ? int(env, "SUBGRAPH_PORT", 0) : undefined,
    gatewayUrl: env.GATEWAY_URL || undefined,
    seedDemo: env.SEED_DEMO !== "0",
    development: env.NODE_ENV === "development",
    listeners: loadListenerLimits(env),
    graphql: loadGraphQLLimits(env),
    internalToken: env.INTERNAL_TOKEN || undefined,
    allowDemoOnNetwork: env.ALLOW_DEMO_ON_NETWORK === "1",
    migrationLockTimeoutMs: int(env, "MIGRATION_LOCK_TIMEOUT_MS", 60_000),
    transactionMaxWaitMs: int(env, "DB_TRANSACTION_MAX_WAIT_MS", 2_000),
    transactionTimeoutMs: int(env, "DB_TRANSACTION_TIMEOUT_MS", 5_000),
    connectTimeoutMs: int(env, "DB_CONNECT_TIMEOUT_MS", 5_000),
    logLevel: logLevel(env.LOG_LEVEL),
    logRequests: !off(env.LOG_REQUESTS),
    requestMetrics: !off(env.REQUEST_METRICS),
    shimAnswerReuse: env.SHIM_ANSWER_REUSE !== "0",
  };
}
