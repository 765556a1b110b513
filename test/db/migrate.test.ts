/**
 * The boot-time migration runner: idempotent, checksummed, atomic per migration, and safe when several processes
 * boot at once on one PostgreSQL.
 */
import { execFile } from "node:child_process";
import { cp, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import pg from "pg";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openDatabase } from "../../subgraphs/shared/db/index.js";
import {
  MigrationChecksumMismatchError,
  MigrationFailedError,
  MigrationLockTimeoutError,
  runMigrations,
  TRACKING_TABLE,
} from "../../subgraphs/shared/db/migrate.js";
import { loadMigrations, migrationChecksum, MIGRATIONS_DIR } from "../../subgraphs/shared/db/migrations.js";
import { pgClientSession } from "../../subgraphs/shared/db/sql-session.js";
import { createPostgresDatabase, databaseTargets } from "../support/db.js";
import { waitUntil } from "../support/wait.js";
import { freshDatabase, type FreshDatabase } from "./fresh-database.js";

const run = promisify(execFile);

/** A private copy of the committed migrations that a test may extend or edit. */
async function copyOfMigrations(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), "migrations-"));
  await cp(MIGRATIONS_DIR, dir, { recursive: true });
  return dir;
}

async function addMigration(dir: string, name: string, sql: string): Promise<void> {
  await mkdir(path.join(dir, name));
  await writeFile(path.join(dir, name, "migration.sql"), sql);
}

describe.each(databaseTargets())("migration runner on %s", (target) => {
  let database: FreshDatabase;
  let migrationsDir: string;
  beforeEach(async () => {
    database = await freshDatabase(target);
    migrationsDir = await copyOfMigrations();
  });
  afterEach(async () => {
    await database.close();
    await rm(migrationsDir, { recursive: true, force: true });
  });

  const tracked = () =>
    database.session.query<{ name: string; checksum: string; applied_at: Date }>(
      `SELECT name, checksum, applied_at FROM ${TRACKING_TABLE} ORDER BY name`,
    );

  it("applies every migration once and records its checksum", async () => {
    const migrations = await loadMigrations(migrationsDir);
    const first = await runMigrations(database.session, migrations);
    expect(first).toEqual({ applied: migrations.map((m) => m.name), alreadyApplied: [] });

    const second = await runMigrations(database.session, migrations);
    expect(second).toEqual({ applied: [], alreadyApplied: migrations.map((m) => m.name) });

    const rows = await tracked();
    expect(rows.map((r) => r.name)).toEqual(migrations.map((m) => m.name));
    expect(rows.map((r) => r.checksum)).toEqual(migrations.map((m) => migrationChecksum(m.sql)));
    expect(rows[0].checksum).toMatch(/^[0-9a-f]{64}$/);
    expect(rows[0].applied_at).toBeInstanceOf(Date);
  });

  it("applies only the migrations added since the last run", async () => {
    await runMigrations(database.session, await loadMigrations(migrationsDir));
    await addMigration(migrationsDir, "29990101000000_add_note", "ALTER TABLE monetization_decision ADD COLUMN note text;");
    const report = await runMigrations(database.session, await loadMigrations(migrationsDir));
    expect(report.applied).toEqual(["29990101000000_add_note"]);
    await database.session.query("SELECT note FROM monetization_decision");
  });

  it("refuses to run when an applied migration was edited", async () => {
    const migrations = await loadMigrations(migrationsDir);
    await runMigrations(database.session, migrations);
    const edited = migrations.map((m, i) => (i === 0 ? { ...m, checksum: migrationChecksum(`${m.sql}\n-- edit`) } : m));
    await addMigration(migrationsDir, "29990101000000_add_note", "ALTER TABLE monetization_decision ADD COLUMN note text;");

    const attempt = runMigrations(database.session, [...edited, ...(await loadMigrations(migrationsDir)).slice(-1)]);
    await expect(attempt).rejects.toBeInstanceOf(MigrationChecksumMismatchError);
    await expect(attempt).rejects.toThrow(migrations[0].name);
    // Nothing after the refusal ran.
    expect((await tracked()).map((r) => r.name)).toEqual(migrations.map((m) => m.name));
  });

  it("treats CRLF line endings as the same migration", async () => {
    const migrations = await loadMigrations(migrationsDir);
    await runMigrations(database.session, migrations);
    const crlf = migrations.map((m) => ({ ...m, checksum: migrationChecksum(m.sql.replace(/\n/g, "\r\n")) }));
    await expect(runMigrations(database.session, crlf)).resolves.toMatchObject({ applied: [] });
  });

  it("rolls a failing migration back completely and keeps the ones before it", async () => {
    await addMigration(
      migrationsDir,
      "29990101000000_broken",
      "CREATE TABLE half_done (id int);\nSELECT 1 / 0;",
    );
    const migrations = await loadMigrations(migrationsDir);
    const attempt = runMigrations(database.session, migrations);
    await expect(attempt).rejects.toBeInstanceOf(MigrationFailedError);
    await expect(attempt).rejects.toThrow("29990101000000_broken");

    expect((await tracked()).map((r) => r.name)).toEqual(migrations.slice(0, -1).map((m) => m.name));
    const leftovers = await database.session.query(`SELECT 1 FROM information_schema.tables WHERE table_name = 'half_done'`);
    expect(leftovers).toEqual([]);
  });

  it("rejects a misnamed migration folder instead of skipping it", async () => {
    await addMigration(migrationsDir, "add_note", "SELECT 1;");
    await expect(loadMigrations(migrationsDir)).rejects.toThrow("add_note");
  });
});

describe.skipIf(!process.env.DATABASE_URL)("migration runner, concurrent on one PostgreSQL", () => {
  it("applies each migration once when runners start together", async () => {
    const scratch = await createPostgresDatabase();
    const migrationsDir = await copyOfMigrations();
    // Not idempotent, so a second application would fail.
    await addMigration(migrationsDir, "29990101000000_once", "CREATE TABLE applied_once (id int);");
    const migrations = await loadMigrations(migrationsDir);
    const clients = Array.from({ length: 4 }, () => new pg.Client({ connectionString: scratch.url }));
    // The runners overlap by construction, not by a sleep: a gate holds the migration lock until all four wait on it.
    const gate = new pg.Client({ connectionString: scratch.url });
    try {
      await gate.connect();
      await Promise.all(clients.map((c) => c.connect()));
      await gate.query("SELECT pg_advisory_lock(7262021553)");
      const running = Promise.all(clients.map((c) => runMigrations(pgClientSession(c), migrations)));
      await waitUntil(async () => {
        const { rows } = await gate.query(
          "SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND classid = $1 AND objid = $2 AND objsubid = 1",
          [Math.floor(7262021553 / 2 ** 32), 7262021553 % 2 ** 32],
        );
        return rows[0].n === 4;
      });
      await gate.query("SELECT pg_advisory_unlock(7262021553)");
      const reports = await running;

      const appliers = reports.filter((r) => r.applied.length > 0);
      expect(appliers).toHaveLength(1);
      expect(appliers[0].applied).toEqual(migrations.map((m) => m.name));
      for (const report of reports.filter((r) => r.applied.length === 0)) {
        expect(report.alreadyApplied).toEqual(migrations.map((m) => m.name));
      }
      const { rows } = await clients[0].query(`SELECT count(*)::int AS n FROM ${TRACKING_TABLE}`);
      expect(rows[0].n).toBe(migrations.length);
    } finally {
      await Promise.all([gate, ...clients].map((c) => c.end()));
      await scratch.drop();
      await rm(migrationsDir, { recursive: true, force: true });
    }
  });

  it("lets several processes boot on one empty database", async () => {
    const scratch = await createPostgresDatabase();
    const boot = `
      import { openDatabase } from "./subgraphs/shared/db/index.ts";
      const db = await openDatabase({ dataDir: ".", databaseUrl: process.env.BOOT_DATABASE_URL });
      // A query on a migrated table proves the boot (ping() has a 2 s deadline that a loaded machine can miss).
      console.log(JSON.stringify({ decisions: await db.prisma.monetizationDecision.count() }));
      await db.close();
    `;
    try {
      const outputs = await Promise.all(
        Array.from({ length: 3 }, () =>
          run(process.execPath, ["--import", "tsx", "--input-type=module", "--eval", boot], {
            cwd: path.resolve(import.meta.dirname, "../.."),
            env: { ...process.env, BOOT_DATABASE_URL: scratch.url },
          }),
        ),
      );
      for (const { stdout } of outputs) expect(JSON.parse(stdout)).toEqual({ decisions: 0 });

      const client = new pg.Client({ connectionString: scratch.url });
      await client.connect();
      const { rows } = await client.query(`SELECT name, count(*)::int AS n FROM ${TRACKING_TABLE} GROUP BY name ORDER BY name`);
      await client.end();
      expect(rows.map((r) => r.name)).toEqual((await loadMigrations()).map((m) => m.name));
      expect(rows.every((r) => r.n === 1)).toBe(true);
    } finally {
      await scratch.drop();
    }
  });

  it("gives up waiting for a migration lock held too long, naming the holder, and leaves no lock_timeout behind", async () => {
    const scratch = await createPostgresDatabase();
    const holder = new pg.Client({ connectionString: scratch.url });
    const waiter = new pg.Client({ connectionString: scratch.url });
    // Other databases on the same server holding the same key (other deployments, other suites' migrations): the
    // error must name this database's holder, not theirs (a loaded full run once named another database's backend).
    const others = [await createPostgresDatabase(), await createPostgresDatabase(), await createPostgresDatabase()];
    const otherHolders = others.map((other) => new pg.Client({ connectionString: other.url }));
    try {
      for (const other of otherHolders) {
        await other.connect();
        await other.query("SELECT pg_advisory_lock(7262021553)");
      }
      await holder.connect();
      await waiter.connect();
      // A process that hangs while migrating: it holds the lock and never lets go.
      await runMigrations(pgClientSession(holder), []);
      const { rows } = await holder.query("SELECT pg_backend_pid() AS pid");
      await holder.query("SELECT pg_advisory_lock(7262021553)");

      // The wait budget is the runner's setting (lockTimeoutMs, MIGRATION_LOCK_TIMEOUT_MS on boot), enforced by the
      // server's lock_timeout: no elapsed-time bound here; without the budget the lock, held forever, hangs the test.
      const error = await runMigrations(pgClientSession(waiter), await loadMigrations(), { lockTimeoutMs: 300 }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(MigrationLockTimeoutError);
      expect((error as MigrationLockTimeoutError).holderPid).toBe(rows[0].pid);
      expect((error as Error).message).toContain(`backend pid ${rows[0].pid}`);
      expect((await waiter.query("SHOW lock_timeout")).rows[0].lock_timeout).toBe("0");
      // Nothing was applied by the runner that gave up.
      expect((await waiter.query(`SELECT count(*)::int AS n FROM ${TRACKING_TABLE}`)).rows[0].n).toBe(0);

      // A booting platform gets the same clear error after MIGRATION_LOCK_TIMEOUT_MS.
      const boot = await openDatabase({ dataDir: ".", databaseUrl: scratch.url, migrationLockTimeoutMs: 300 }).catch((e: unknown) => e);
      expect(boot).toBeInstanceOf(MigrationLockTimeoutError);

      await holder.query("SELECT pg_advisory_unlock(7262021553)");
      const report = await runMigrations(pgClientSession(waiter), await loadMigrations(), { lockTimeoutMs: 300 });
      expect(report.applied).toEqual((await loadMigrations()).map((m) => m.name));
    } finally {
      await holder.end().catch(() => undefined);
      await waiter.end().catch(() => undefined);
      for (const other of otherHolders) await other.end().catch(() => undefined);
      await scratch.drop();
      for (const other of others) await other.drop();
    }
  });
});
