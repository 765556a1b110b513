/**
 * Applies the committed migrations at boot.
 *
 * Applied migrations are recorded in `schema_migrations` (name, sha256 checksum, applied_at). Each pending migration
 * runs in its own transaction together with its tracking row, so a failure leaves no half-applied migration behind.
 * The whole run holds a session-level advisory lock, so replicas booting together on one PostgreSQL apply each
 * migration once: the others wait, then find nothing left to do. They wait at most `lockTimeoutMs`
 * (MIGRATION_LOCK_TIMEOUT_MS): a process that holds the lock longer (hung, or stopped in a debugger) makes the others
 * fail with MigrationLockTimeoutError naming its backend pid, instead of waiting forever.
 */
import type { Migration } from "./migrations.js";
import type { SqlSession } from "./sql-session.js";

export const TRACKING_TABLE = "schema_migrations";

/** Advisory lock key shared by every process that migrates this schema; any constant works if all agree on it. */
const MIGRATION_LOCK_KEY = 7_262_021_553;

export interface MigrationReport {
  /** Migrations applied by this run, in order. */
  applied: string[];
  /** Migrations that an earlier run had applied. */
  alreadyApplied: string[];
}

/** An applied migration's file changed: the database no longer matches what the code's migrations describe. */
export class MigrationChecksumMismatchError extends Error {
  constructor(readonly migrationNames: string[]) {
    super(
      `applied migrations were edited after they ran: ${migrationNames.join(", ")}. ` +
        "Restore the committed files and put the change in a new migration (docs/database.md).",
    );
    this.name = "MigrationChecksumMismatchError";
  }
}

export class MigrationLockTimeoutError extends Error {
  constructor(readonly timeoutMs: number, readonly holderPid: number | undefined) {
    super(
      `another process has held the migration lock (advisory lock ${MIGRATION_LOCK_KEY}) for over ${timeoutMs} ms` +
        `${holderPid ? `: PostgreSQL backend pid ${holderPid}` : ""}; ` +
        "if no migration is running there, end that session (pg_terminate_backend), then start again " +
        "(MIGRATION_LOCK_TIMEOUT_MS sets the wait)",
    );
    this.name = "MigrationLockTimeoutError";
  }
}

export class MigrationFailedError extends Error {
  constructor(readonly migrationName: string, cause: unknown) {
    super(`migration ${migrationName} failed and was rolled back: ${(cause as Error)?.message ?? cause}`, { cause });
    this.name = "MigrationFailedError";
  }
}

interface AppliedRow {
  name: string;
  checksum: string;
}

/** PostgreSQL's SQLSTATE for "could not obtain lock" (lock_timeout passed). */
const LOCK_NOT_AVAILABLE = "55P03";

export async function runMigrations(
  session: SqlSession,
  migrations: Migration[],
  options: { lockTimeoutMs?: number } = {},
): Promise<MigrationReport> {
  await takeLock(session, options.lockTimeoutMs ?? 60_000);
  try {
    // Created under the lock: concurrent CREATE TABLE IF NOT EXISTS can still collide in the catalog.
    await session.exec(
      `CREATE TABLE IF NOT EXISTS ${TRACKING_TABLE} (
         name text PRIMARY KEY,
         checksum text NOT NULL,
         applied_at timestamptz NOT NULL DEFAULT now()
       )`,
    );
    const applied = new Map(
      (await session.query<AppliedRow>(`SELECT name, checksum FROM ${TRACKING_TABLE}`)).map((row) => [
        row.name,
        row.checksum,
      ]),
    );
    const edited = migrations.filter((m) => applied.has(m.name) && applied.get(m.name) !== m.checksum);
    if (edited.length > 0) throw new MigrationChecksumMismatchError(edited.map((m) => m.name));

    const pending = migrations.filter((m) => !applied.has(m.name));
    for (const migration of pending) await applyInTransaction(session, migration);
    return {
      applied: pending.map((m) => m.name),
      alreadyApplied: migrations.filter((m) => applied.has(m.name)).map((m) => m.name),
    };
  } finally {
    // If the connection is gone the server has already released the lock with the session.
    await session.query("SELECT pg_advisory_unlock($1)", [MIGRATION_LOCK_KEY]).catch(() => undefined);
  }
}

/** Waits for the advisory lock at most `timeoutMs` (lock_timeout applies to advisory locks too). */
async function takeLock(session: SqlSession, timeoutMs: number): Promise<void> {
  await session.query("SELECT set_config('lock_timeout', $1, false)", [`${timeoutMs}ms`]);
  try {
    await session.query("SELECT pg_advisory_lock($1)", [MIGRATION_LOCK_KEY]);
  } catch (error) {
    if ((error as { code?: string }).code !== LOCK_NOT_AVAILABLE) throw error;
    throw new MigrationLockTimeoutError(timeoutMs, await lockHolder(session));
  } finally {
    // The migrations themselves may wait for table locks as long as they need.
    await session.exec("RESET lock_timeout").catch(() => undefined);
  }
}

/** The backend holding the lock (a bigint key is split into classid, the high 32 bits, and objid). */
async function lockHolder(session: SqlSession): Promise<number | undefined> {
  const rows = await session
    .query<{ pid: number }>(
      // Advisory locks are per database: other databases on the server (other deployments, test runs) may hold the
      // same key at the same time, so only this database's holder is the one we wait for.
      `SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND classid = $1 AND objid = $2 AND objsubid = 1
         AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
      [Math.floor(MIGRATION_LOCK_KEY / 2 ** 32), MIGRATION_LOCK_KEY % 2 ** 32],
    )
    .catch(() => []);
  return rows[0]?.pid;
}

async function applyInTransaction(session: SqlSession, migration: Migration): Promise<void> {
  await session.exec("BEGIN");
  try {
    await session.exec(migration.sql);
    await session.query(`INSERT INTO ${TRACKING_TABLE} (name, checksum) VALUES ($1, $2)`, [
      migration.name,
      migration.checksum,
    ]);
    await session.exec("COMMIT");
  } catch (error) {
    await session.exec("ROLLBACK").catch(() => undefined); // a dead connection rolls back by itself
    throw new MigrationFailedError(migration.name, error);
  }
}
