/**
 * What the committed migrations are missing: they are applied by the production runner to a throw-away in-memory
 * PGlite, and the resulting database is diffed against prisma/schema.prisma.
 */
import { PGlite } from "@electric-sql/pglite";
import { PrismaPGlite } from "pglite-prisma-adapter";
import { runMigrations } from "../../subgraphs/shared/db/migrate.js";
import { loadMigrations, MIGRATIONS_DIR } from "../../subgraphs/shared/db/migrations.js";
import { pgliteSession } from "../../subgraphs/shared/db/sql-session.js";
import { diffDatabaseToSchema, type SchemaDiff } from "./schema-engine.js";

export async function diffMigrationsToSchema(migrationsDir: string = MIGRATIONS_DIR): Promise<SchemaDiff> {
  const pglite = await PGlite.create();
  try {
    await runMigrations(pgliteSession(pglite), await loadMigrations(migrationsDir));
    return await diffDatabaseToSchema(new PrismaPGlite(pglite));
  } finally {
    await pglite.close();
  }
}
