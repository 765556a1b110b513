/**
 * An empty database with one raw SQL session, for tests that drive the migration runner or the schema engine
 * directly (test/support/db.ts hands out databases that are already migrated).
 */
import { PGlite } from "@electric-sql/pglite";
import type { SqlMigrationAwareDriverAdapterFactory } from "@prisma/driver-adapter-utils";
import pg from "pg";
import { PrismaPGlite } from "pglite-prisma-adapter";
import { postgresSchemaEngineAdapter } from "../../prisma/tools/postgres-adapter.js";
import { pgClientSession, pgliteSession, type SqlSession } from "../../subgraphs/shared/db/sql-session.js";
import { createPostgresDatabase, type DatabaseTarget } from "../support/db.js";

export interface FreshDatabase {
  session: SqlSession;
  /** PostgreSQL only: URL for further connections. */
  url?: string;
  /** A driver adapter over the same database, for the schema engine. */
  schemaEngineAdapter(): SqlMigrationAwareDriverAdapterFactory;
  close(): Promise<void>;
}

let blankPgliteSnapshot: Promise<Blob> | undefined;

/** Loading a dumped cluster skips PGlite's initdb, which takes seconds. */
async function blankPglite(): Promise<PGlite> {
  blankPgliteSnapshot ??= PGlite.create().then(async (template) => {
    const snapshot = await template.dumpDataDir("none");
    await template.close();
    return snapshot;
  });
  return PGlite.create({ loadDataDir: await blankPgliteSnapshot });
}

export async function freshDatabase(target: DatabaseTarget): Promise<FreshDatabase> {
  if (target === "pglite") {
    const pglite = await blankPglite();
    return {
      session: pgliteSession(pglite),
      schemaEngineAdapter: () => new PrismaPGlite(pglite),
      close: () => pglite.close(),
    };
  }
  const scratch = await createPostgresDatabase();
  const client = new pg.Client({ connectionString: scratch.url });
  await client.connect();
  const engineAdapters: { close(): Promise<void> }[] = [];
  return {
    session: pgClientSession(client),
    url: scratch.url,
    schemaEngineAdapter() {
      const engineAdapter = postgresSchemaEngineAdapter(scratch.url);
      engineAdapters.push(engineAdapter);
      return engineAdapter.adapter;
    },
    async close() {
      await Promise.all(engineAdapters.map((a) => a.close()));
      await client.end();
      await scratch.drop();
    },
  };
}
