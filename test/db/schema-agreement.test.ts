/**
 * prisma/schema.prisma and prisma/migrations describe the same database.
 *
 * The committed migrations are applied by the production runner to an empty database, then Prisma's own schema
 * engine (wasm, through a driver adapter) diffs that live database against schema.prisma: an empty diff means no
 * table, column, type, default, index, unique or foreign key differs. A control case proves the diff is not blind.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { diffDatabaseToSchema } from "../../prisma/tools/schema-engine.js";
import { runMigrations } from "../../subgraphs/shared/db/migrate.js";
import { loadMigrations, MIGRATIONS_DIR } from "../../subgraphs/shared/db/migrations.js";
import { databaseTargets } from "../support/db.js";
import { freshDatabase, type FreshDatabase } from "./fresh-database.js";

// The first test of a worker pays for PGlite start-up and compiling the engine wasm; on a busy 2-core machine that
// has exceeded the default 60 s.
describe.each(databaseTargets())("schema and migrations on %s", { timeout: 180_000 }, (target) => {
  let database: FreshDatabase | undefined;
  afterEach(async () => {
    await database?.close();
    database = undefined;
  });

  async function migratedDatabase(): Promise<FreshDatabase> {
    database = await freshDatabase(target);
    await runMigrations(database.session, await loadMigrations());
    return database;
  }

  it("leave nothing to migrate after the committed migrations ran", async () => {
    const db = await migratedDatabase();
    const diff = await diffDatabaseToSchema(db.schemaEngineAdapter());
    expect(diff.sql).toBe("-- This is an empty migration.\n");
    expect(diff.empty).toBe(true);
  });

  it("report a database that drifted from the schema", async () => {
    const db = await migratedDatabase();
    await db.session.exec(`DROP INDEX verify_evidence_machine_id_idx; ALTER TABLE monetization_decision ADD COLUMN extra text`);
    const diff = await diffDatabaseToSchema(db.schemaEngineAdapter());
    expect(diff.empty).toBe(false);
    expect(diff.sql).toContain(`CREATE INDEX "verify_evidence_machine_id_idx"`);
    expect(diff.sql).toContain(`DROP COLUMN "extra"`);
  });
});

describe("migration folder", () => {
  it("is locked to the postgresql provider", async () => {
    const lockfile = await readFile(path.join(MIGRATIONS_DIR, "migration_lock.toml"), "utf8");
    expect(lockfile).toMatch(/^provider = "postgresql"$/m);
  });

  it("holds at least the initial migration, in timestamp order", async () => {
    const names = (await loadMigrations()).map((m) => m.name);
    expect(names.length).toBeGreaterThan(0);
    expect(names[0]).toMatch(/^\d{14}_init$/);
    expect([...names].sort()).toEqual(names);
  });
});
