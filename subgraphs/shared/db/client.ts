/**
 * Opens the platform database: embedded PGlite under `<dataDir>/pglite` by default, PostgreSQL when a URL is set.
 * Migrations are applied before the client is handed out, so callers always see the current schema.
 */
import { mkdir } from "node:fs/promises";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { PrismaPGlite } from "pglite-prisma-adapter";
import { StoreUnavailableError } from "../errors.js";
import { PrismaClient } from "./generated/client.js";
import { runMigrations } from "./migrate.js";
import { loadMigrations } from "./migrations.js";
import { lockDataDir } from "./pglite-lock.js";
import { observePool } from "../observability/metrics.js";
import { timeTransactions } from "./transaction-metrics.js";
import { statementNamer } from "./statement-names.js";
import { pgClientSession, pgliteSession, poolStatement, type SqlStatement } from "./sql-session.js";
import { PgliteStatements, pgliteStatement } from "./pglite-statements.js";
import { pgliteTransaction, poolTransaction, type SqlTransaction } from "./sql-transaction.js";
import { POOL_TYPES } from "./timestamp-parser.js";
import { sharedReads } from "./shared-reads.js";

export type DatabaseKind = "pglite" | "postgres";

export interface Database {
  prisma: PrismaClient;
  kind: DatabaseKind;
  /** Disconnects the client and releases the connections (or the embedded database files). */
  close(): Promise<void>;
  /** True when a trivial query succeeds within {@link PING_TIMEOUT_MS}; never throws. */
  ping(): Promise<boolean>;
  /**
   * One parameterised statement as its own transaction, without Prisma's pipeline: on PostgreSQL straight on the
   * connection pool, on PGlite straight on the embedded database (under the lock it takes for every query); named and
   * prepared once per connection or database on both.
   */
  statement: SqlStatement;
  /**
   * One read-only statement (a SELECT that changes nothing), run as {@link statement} runs one, except that identical
   * reads (the same text and values) arriving while one runs share the next execution (on PGlite, those of one turn of
   * the event loop share one: shared-reads.ts). Its rows are frozen and may be shared with other callers.
   */
  read: SqlStatement;
  /**
   * An interactive transaction of plain SQL statements (sql-transaction.ts): on PostgreSQL one pooled connection
   * between BEGIN and COMMIT, on PGlite under PGlite's transaction lock with BEGIN sent with the first statement; the
   * same limits and metrics as Prisma's.
   */
  transaction: SqlTransaction;
}

export interface DatabaseConfig {
  dataDir: string;
  /** PostgreSQL URL; unset means: embedded PGlite under `dataDir`. */
  databaseUrl?: string;
  /** How long to wait for another process's migration lock (default 60 s). */
  migrationLockTimeoutMs?: number;
  /** How long an interactive transaction may wait to start (default {@link TRANSACTION_MAX_WAIT_MS}). */
  transactionMaxWaitMs?: number;
  /** How long an interactive transaction may run, lock waits included (default {@link TRANSACTION_TIMEOUT_MS}). */
  transactionTimeoutMs?: number;
  /** PostgreSQL: how long a query waits for a pooled or new connection (default {@link CONNECT_TIMEOUT_MS}). */
  connectTimeoutMs?: number;
}

export interface OpenDatabaseOptions {
  /** PGlite only: keep the database in memory (tests). */
  inMemory?: boolean;
  /** PostgreSQL only: connections per process (default {@link DEFAULT_POOL_SIZE}). */
  poolSize?: number;
}

/** Enough for one process's concurrent requests while N replicas stay under PostgreSQL's default 100 connections. */
export const DEFAULT_POOL_SIZE = 10;
/** A server that does not answer within this time is reported as unavailable instead of making requests hang. */
export const CONNECT_TIMEOUT_MS = 5_000;
export const PING_TIMEOUT_MS = 2_000;
/** Prisma's own defaults for interactive transactions, kept as the platform's (DB_TRANSACTION_MAX_WAIT_MS / _TIMEOUT_MS). */
export const TRANSACTION_MAX_WAIT_MS = 2_000;
export const TRANSACTION_TIMEOUT_MS = 5_000;

function transactionOptions(config: DatabaseConfig) {
  return {
    maxWait: config.transactionMaxWaitMs ?? TRANSACTION_MAX_WAIT_MS,
    timeout: config.transactionTimeoutMs ?? TRANSACTION_TIMEOUT_MS,
  };
}

export async function openDatabase(config: DatabaseConfig, opts: OpenDatabaseOptions = {}): Promise<Database> {
  return config.databaseUrl
    ? openPostgres(config.databaseUrl, opts.poolSize ?? DEFAULT_POOL_SIZE, config.migrationLockTimeoutMs, transactionOptions(config), config.connectTimeoutMs ?? CONNECT_TIMEOUT_MS)
    : openPglite(opts.inMemory ? undefined : path.join(config.dataDir, "pglite"), transactionOptions(config));
}

async function openPglite(dir: string | undefined, transactions: { maxWait: number; timeout: number }): Promise<Database> {
  let unlock: () => Promise<void> = async () => undefined;
  if (dir) {
    await mkdir(dir, { recursive: true });
    unlock = await lockDataDir(dir);
  }
  let pglite: PGlite | undefined;
  try {
    pglite = dir ? await PGlite.create(dir) : await createPgliteInMemory();
    await runMigrations(pgliteSession(pglite), await loadMigrations());
    await dropRowTypeArrayParsers(pglite);
  } catch (error) {
    await pglite?.close();
    await unlock();
    throw error;
  }
  const opened = pglite;
  const prisma = timeTransactions(new PrismaClient({ adapter: new PrismaPGlite(opened), transactionOptions: transactions }), "pglite");
  // The platform's statements, prepared once per text (pglite-statements.ts).
  const prepared = new PgliteStatements(opened);
  const statement = pgliteStatement(opened, prepared);
  return {
    prisma,
    kind: "pglite",
    statement,
    // The embedded database runs on this thread: reads gather for one turn of the event loop (shared-reads.ts).
    read: sharedReads(statement, { gather: true }),
    transaction: pgliteTransaction(opened, prepared, transactions.maxWait, transactions.timeout),
    ping: () => pingWithin(prisma, PING_TIMEOUT_MS),
    async close() {
      await prisma.$disconnect();
      await opened.close();
      await unlock();
    },
  };
}

/**
 * PGlite copies its whole table of result parsers for every statement's result: about 350 entries, one per array
 * type, two thirds of them arrays of table row types (PostgreSQL's catalogs' and ours), which no statement here
 * returns. Dropping those makes the copy a third as long and each statement cheaper (docs/database.md). An array of a
 * row type would then come back as its text; arrays of every other type keep their parsers.
 */
async function dropRowTypeArrayParsers(db: PGlite): Promise<void> {
  const { rows } = await db.query<{ oid: number }>(
    "SELECT a.oid::int AS oid FROM pg_catalog.pg_type a JOIN pg_catalog.pg_type e ON e.oid = a.typelem WHERE a.typcategory = 'A' AND e.typtype = 'c'",
  );
  for (const { oid } of rows) delete db.parsers[oid];
}

let migratedSnapshot: Promise<Blob> | undefined;

/**
 * initdb dominates PGlite's start-up (seconds), so in-memory databases (tests open many) start from a per-process
 * snapshot of a freshly migrated one; the runner still checks it against the migrations.
 */
async function createPgliteInMemory(): Promise<PGlite> {
  migratedSnapshot ??= (async () => {
    const template = await PGlite.create();
    try {
      await runMigrations(pgliteSession(template), await loadMigrations());
      return await template.dumpDataDir("none");
    } finally {
      await template.close();
    }
  })().catch((error: unknown) => {
    migratedSnapshot = undefined; // let the next open retry instead of repeating a cached failure
    throw error;
  });
  return PGlite.create({ loadDataDir: await migratedSnapshot });
}

async function openPostgres(
  url: string,
  poolSize: number,
  lockTimeoutMs: number | undefined,
  transactions: { maxWait: number; timeout: number },
  connectTimeoutMs: number,
): Promise<Database> {
  await migratePostgres(url, lockTimeoutMs);
  const pool = new pg.Pool({
    connectionString: url,
    max: poolSize,
    connectionTimeoutMillis: connectTimeoutMs,
    idleTimeoutMillis: 30_000,
    keepAlive: true,
    // pg's parsers, timestamptz read by a faster parser of the same result (timestamp-parser.ts). Prisma's adapter
    // gives its queries parsers of its own.
    types: POOL_TYPES,
  });
  // An idle connection dropped by the server emits 'error' on the pool; unhandled, that would kill the process.
  // The pool discards the connection and the next query that needs one reports the failure.
  pool.on("error", () => undefined);
  // Named (prepared) statements: each connection parses a statement once (statement-names.ts).
  const name = statementNamer();
  const adapter = new PrismaPg(pool, { statementNameGenerator: (query) => name(query.sql) as string });
  const prisma = timeTransactions(new PrismaClient({ adapter, transactionOptions: transactions }), "postgres");
  const unobserve = observePool(pool);
  const statement = poolStatement(pool, name);
  return {
    prisma,
    kind: "postgres",
    statement,
    read: sharedReads(statement),
    transaction: poolTransaction(pool, name, transactions.timeout),
    ping: () => pingWithin(prisma, PING_TIMEOUT_MS),
    async close() {
      unobserve();
      await prisma.$disconnect();
      await pool.end();
    },
  };
}

/** Migrations run on one dedicated connection: the advisory lock and each BEGIN/COMMIT must share a session. */
async function migratePostgres(url: string, lockTimeoutMs: number | undefined): Promise<void> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  client.on("error", () => undefined); // surfaced by the failing query instead
  try {
    await client.connect();
  } catch (error) {
    throw new StoreUnavailableError(error);
  }
  try {
    await runMigrations(pgClientSession(client), await loadMigrations(), { lockTimeoutMs });
  } finally {
    await client.end().catch(() => undefined); // closing a broken connection must not hide the real error
  }
}

async function pingWithin(prisma: PrismaClient, timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  const answered = prisma.$queryRaw`SELECT 1`.then(
    () => true,
    () => false,
  );
  try {
    return await Promise.race([answered, timedOut]);
  } finally {
    clearTimeout(timer);
  }
}
