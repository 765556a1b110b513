/**
 * Throw-away databases for test suites.
 *
 *   describe.each(databaseTargets())("on %s", (target) => {
 *     const testDb = withTestDatabase(target);
 *     it("...", async () => { await testDb.db.prisma.verifyChallenge.count(); });
 *   });
 *
 * `pglite` is an in-memory PGlite (always available). `postgres` runs only when DATABASE_URL is set: every suite gets
 * its own `test_<random>` database on that server (migrated, with a URL other processes can open), dropped afterwards.
 */
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll } from "vitest";
import { openDatabase, type Database } from "../../subgraphs/shared/db/index.js";

export type DatabaseTarget = "pglite" | "postgres";

/** Whether this run has a PostgreSQL server (DATABASE_URL): the PostgreSQL cases run only then. */
export const usesPostgres = Boolean(process.env.DATABASE_URL);
export const POSTGRES_SKIP_MESSAGE = "DATABASE_URL is unset: the PostgreSQL cases are skipped";

/** One query on a PostgreSQL database over a separate connection (as an operator, or a second instance, would). */
export async function sql<T extends Record<string, unknown>>(databaseUrl: string, text: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return (await client.query(text, values)).rows as T[];
  } finally {
    await client.end();
  }
}

/** The targets this run can reach: PGlite always, PostgreSQL when DATABASE_URL is set. */
export function databaseTargets(): DatabaseTarget[] {
  return process.env.DATABASE_URL ? ["pglite", "postgres"] : ["pglite"];
}

export interface ScratchPostgresDatabase {
  /** URL of the new, empty database (no migrations applied). */
  url: string;
  /** Drops the database, disconnecting whatever is still connected to it. */
  drop(): Promise<void>;
}

/** Creates an empty, uniquely named database on DATABASE_URL's server. */
export async function createPostgresDatabase(): Promise<ScratchPostgresDatabase> {
  const serverUrl = requireDatabaseUrl();
  const name = `test_${randomBytes(6).toString("hex")}`;
  await withAdminClient(serverUrl, async (admin) => {
    await admin.query(`CREATE DATABASE ${name}`);
  });
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    // FORCE (PostgreSQL 13+) ends sessions a crashed child process may have left behind.
    drop: () =>
      withAdminClient(serverUrl, async (admin) => {
        await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      }),
  };
}

export interface TestDatabase {
  target: DatabaseTarget;
  /** The open, migrated database. */
  db: Database;
  /** PostgreSQL only: the database's URL, for child processes. */
  url?: string;
  /** Closes the client and deletes the database. */
  dispose(): Promise<void>;
}

/** Opens a fresh, migrated database of the given kind. */
export async function openTestDatabase(target: DatabaseTarget = "pglite"): Promise<TestDatabase> {
  // openDatabase wants a data directory even when it will not write to it.
  const dataDir = await mkdtemp(path.join(tmpdir(), "db-test-"));
  const removeDataDir = () => rm(dataDir, { recursive: true, force: true });
  if (target === "pglite") {
    const db = await openDatabase({ dataDir }, { inMemory: true });
    return {
      target,
      db,
      async dispose() {
        await db.close();
        await removeDataDir();
      },
    };
  }
  const scratch = await createPostgresDatabase();
  const db = await openDatabase({ dataDir, databaseUrl: scratch.url }).catch(async (error) => {
    await scratch.drop();
    throw error;
  });
  return {
    target,
    db,
    url: scratch.url,
    async dispose() {
      await db.close();
      await scratch.drop();
      await removeDataDir();
    },
  };
}

export interface SuiteDatabase {
  readonly db: Database;
  readonly url: string | undefined;
}

/** One database for the enclosing `describe`: opened in beforeAll, disposed in afterAll. */
export function withTestDatabase(target: DatabaseTarget = "pglite"): SuiteDatabase {
  let current: TestDatabase | undefined;
  beforeAll(async () => {
    current = await openTestDatabase(target);
  });
  afterAll(async () => {
    await current?.dispose();
  });
  const opened = (): TestDatabase => {
    if (!current) throw new Error("withTestDatabase: the database is opened in beforeAll; use it inside tests");
    return current;
  };
  return {
    get db() {
      return opened().db;
    },
    get url() {
      return opened().url;
    },
  };
}

function requireDatabaseUrl(): string {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error("DATABASE_URL is not set: PostgreSQL targets need a server");
  return url;
}

async function withAdminClient<T>(serverUrl: string, use: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: serverUrl, connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}
