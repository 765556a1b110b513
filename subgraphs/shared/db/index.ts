/**
 * The database module: open a client, classify failures, and the generated types other modules program against.
 *
 *   const db = await openDatabase(config);           // PGlite under config.dataDir, or PostgreSQL at config.databaseUrl
 *   await db.prisma.verifyChallenge.findUnique(...);
 */
export { openDatabase, DEFAULT_POOL_SIZE, CONNECT_TIMEOUT_MS, PING_TIMEOUT_MS } from "./client.js";
export type { Database, DatabaseConfig, DatabaseKind, OpenDatabaseOptions } from "./client.js";
export { isStoreFailure, isUniqueViolation, toStoreError } from "./store-errors.js";
export { MigrationChecksumMismatchError, MigrationFailedError, MigrationLockTimeoutError } from "./migrate.js";
export { DataDirInUseError } from "./pglite-lock.js";
export { Prisma, PrismaClient } from "./generated/client.js";
export type {
  MonetizationDecision,
  VerifyChallenge,
  VerifyEvidence,
} from "./generated/client.js";
