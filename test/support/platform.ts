/**
 * Starts the whole platform (role `all`) in this process on free ports with a throw-away data directory: real
 * anvil chain with our contracts and the demo fixture, real database (PGlite, or PostgreSQL when `databaseUrl` is
 * given), real gateway and REST listeners.
 */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { loadConfig, type PlatformConfig } from "../../subgraphs/shared/config.js";
import type { DemoFixture, DemoMachine } from "../../subgraphs/shared/chain/demo-fixture.js";
import { consoleLogger, startPlatform, type RunningPlatform, type StartOptions } from "../../gateway/platform.js";
import { rateLimitClock, type ManualClock } from "./clock.js";
import { GENEROUS_LIMITS } from "./config.js";
import { chainTemplateApplies, copyChainTemplate } from "./templates/chain-template.js";
import { copyDatabaseTemplate, databaseTemplateApplies } from "./templates/database-template.js";
import { createPostgresDatabase, usesPostgres } from "./db.js";

export { eventually, waitUntil } from "./wait.js";
import { TEST_TRANSACTION_DEADLINE_MS } from "./timeouts.js";
export { PLATFORM_START_TIMEOUT_MS, TEST_TRANSACTION_DEADLINE_MS } from "./timeouts.js";
export { POSTGRES_SKIP_MESSAGE, sql, usesPostgres } from "./db.js";

export interface TestPlatform {
  config: PlatformConfig;
  platform: RunningPlatform;
  demo: DemoFixture;
  dataDir: string;
  /** Base URL of the documents 1 and 2 listener, e.g. http://127.0.0.1:PORT */
  http: string;
  markets: string;
  /** Document 2's 2.0 deployment listener. */
  mcr2: string;
  graphql: string;
  /** The clock of the per-IP rate-limit windows: frozen mid-window unless the test passed `rateLimitClock` (then
   * undefined); `advance(windowMs)` rolls the window. */
  rateLimitClock?: ManualClock;
  machine(state: DemoMachine["state"], index?: number): DemoMachine;
  close(): Promise<void>;
}

export async function startTestPlatform(env: Record<string, string> = {}, options: StartOptions = {}): Promise<TestPlatform> {
  const dataDir = env.DATA_DIR ?? (await mkdtemp(path.join(os.tmpdir(), "platform-test-")));
  const config = loadConfig({
    DATA_DIR: dataDir,
    HTTP_PORT: "0",
    MARKETS_PORT: "0",
    GRAPHQL_PORT: "0",
    ANVIL_PORT: "0",
    MCR2_PORT: "0",
    ADMIN_PORT: "0",
    // Jobs run on demand in tests (services.ratings.ownershipIndex.sync()), like the verify cleanup job.
    MCR2_INDEX_SYNC_MS: "0",
    ALTCHAIN_RPC_PORT: "0",
    DEMO_PROVIDER_PORT: "0",
    LOG_LEVEL: "silent",
    VERIFY_CLEANUP_INTERVAL_MS: "0",
    MACHINE_IDENTITY_CLEANUP_INTERVAL_MS: "0",
    MARKETS_LIFECYCLE_SWEEP_INTERVAL_MS: "0",
    CHAIN_POLL_MS: "50",
    DB_TRANSACTION_MAX_WAIT_MS: String(TEST_TRANSACTION_DEADLINE_MS),
    DB_TRANSACTION_TIMEOUT_MS: String(TEST_TRANSACTION_DEADLINE_MS),
    DB_CONNECT_TIMEOUT_MS: String(TEST_TRANSACTION_DEADLINE_MS),
    ...env,
  });
  // A deployed, seeded chain copied in instead of deploying and seeding again (chain-template.ts).
  if (chainTemplateApplies(config, !env.DATA_DIR)) await copyChainTemplate(config, dataDir);
  // A migrated embedded database copied in instead of initdb and the migrations (database-template.ts).
  if (databaseTemplateApplies(config, !env.DATA_DIR)) await copyDatabaseTemplate(dataDir);
  // No wall-clock window boundary may fall inside a test's sequence of requests: the windows stand still.
  const frozenWindows = options.rateLimitClock ? undefined : rateLimitClock(config.rateLimits.windowMs);
  const platform = await startPlatform({ kind: "all" }, config, consoleLogger(config.logLevel), {
    ...options,
    rateLimitClock: options.rateLimitClock ?? frozenWindows,
  });
  const demo = platform.chain!.demo!;
  return {
    config,
    platform,
    demo,
    dataDir,
    http: platform.urls.http,
    markets: platform.urls.markets,
    mcr2: platform.urls.mcr2,
    graphql: platform.urls.graphql,
    rateLimitClock: frozenWindows,
    machine(state, index = 0) {
      const found = demo.machines.filter((m) => m.state === state)[index];
      if (!found) throw new Error(`demo fixture has no machine #${index} in state ${state}`);
      return found;
    },
    async close() {
      await platform.close();
      if (!env.DATA_DIR) await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** POSTs a GraphQL operation to the gateway listener. */
export async function graphql(
  url: string,
  query: string,
  variables: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Promise<{ status: number; body: { data?: any; errors?: Array<{ message: string; extensions?: Record<string, unknown> }> } }> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ query, variables }),
  });
  return { status: response.status, body: (await response.json()) as any };
}

export interface IsolatedPlatform extends TestPlatform {
  /** URL of this platform's own PostgreSQL database, when the run has DATABASE_URL; undefined on PGlite. */
  databaseUrl?: string;
}

/**
 * The platform with per-IP limits no test meets unless it sets small ones (GENEROUS_LIMITS), on its own database:
 * PGlite in its data directory, or, when the run has DATABASE_URL, a throw-away PostgreSQL database dropped on close.
 * The same tests so cover both database kinds. `env.DATABASE_URL` shares a given database instead (two instances).
 */
export async function startIsolatedPlatform(env: Record<string, string> = {}, options: StartOptions = {}): Promise<IsolatedPlatform> {
  const scratch = usesPostgres && !env.DATABASE_URL ? await createPostgresDatabase() : undefined;
  const databaseUrl = env.DATABASE_URL ?? scratch?.url;
  let p: TestPlatform;
  try {
    p = await startTestPlatform({ ...GENEROUS_LIMITS, ...env, ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}) }, options);
  } catch (error) {
    await scratch?.drop();
    throw error;
  }
  return {
    ...p,
    databaseUrl,
    async close() {
      await p.close();
      await scratch?.drop();
    },
  };
}
