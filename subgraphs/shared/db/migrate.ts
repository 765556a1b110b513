/**
 * Applies the committed migrations at boot.
 *
 * Applied migrations are recorded in `schema_migrations` (name, sha256 checksum, applied_at). Each pending migration
 * runs in its own transaction together with its tracking row, so a failure leaves no half-applied migration behind.
 * The whole run holds a session-level advisory lock, so replicas booting together on one PostgreSQL apply each
 * migration once: the others wait, then find nothing left to do.
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

export async function runMigrations(session: SqlSession, migrations: Migration[]): Promise<MigrationReport> {
  await session.query("SELECT pg_advisory_lock($1)", [MIGRATION_LOCK_KEY]);
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
