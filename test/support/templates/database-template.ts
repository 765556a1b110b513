/**
 * A migrated embedded database to start test platforms from, instead of PGlite's initdb and every migration on each
 * start (initdb alone takes about 6 s of a platform start; opening an existing data directory well under 1 s).
 *
 * The platform opens `<dataDir>/pglite` and runs the migrations it finds unapplied (subgraphs/shared/db/client.ts), so
 * a template is that directory as the platform leaves it after a first start: made once by the platform's own
 * `openDatabase` in a scratch directory and closed, then copied into each test platform's fresh data directory,
 * where the platform's start finds every migration applied (checksums compared, as always) and adds nothing. Nothing
 * is shared at run time: each platform has its own copy.
 *
 * A template is keyed by the migrations (names and checksums) and the PGlite version; templates older than an hour
 * are removed when a new one is made. Two test workers that make the same template at once both succeed: each builds
 * in its own directory and the first rename wins.
 *
 * `TEST_DATABASE_TEMPLATE=0` turns it off (every platform runs initdb and the migrations, as `npm start` does on a
 * fresh data directory); the platforms the e2e suites start as processes (`npm start`, test/e2e/) and the on-disk
 * databases of test/db/client.test.ts still take that path.
 */
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { cp, readFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { PlatformConfig } from "../../../subgraphs/shared/config.js";
import { openDatabase } from "../../../subgraphs/shared/db/index.js";
import { loadMigrations } from "../../../subgraphs/shared/db/migrations.js";
import { publishTemplate } from "./chain-template.js";

const TEMPLATE_PREFIX = "platform-pglite-template-";

let key: Promise<string> | undefined;

/** Whether a platform with this configuration can start from a template: embedded PGlite in a fresh directory. */
export function databaseTemplateApplies(config: PlatformConfig, freshDataDir: boolean): boolean {
  return freshDataDir && !config.databaseUrl && process.env.TEST_DATABASE_TEMPLATE !== "0";
}

function templateKey(): Promise<string> {
  key ??= (async () => {
    const hash = createHash("sha256");
    const manifest = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../node_modules/@electric-sql/pglite/package.json");
    hash.update(JSON.parse(await readFile(manifest, "utf8")).version as string);
    for (const migration of await loadMigrations()) hash.update(migration.name).update(migration.checksum);
    return hash.digest("hex").slice(0, 24);
  })();
  return key;
}

/** Opens the database once in a scratch directory (initdb and the migrations), closes it and publishes it. */
async function makeTemplate(dir: string): Promise<void> {
  await publishTemplate(TEMPLATE_PREFIX, dir, async (scratch) => {
    const db = await openDatabase({ dataDir: scratch });
    await db.close();
  });
}

/** Copies a migrated embedded database into `dataDir` (made first when there is none for these migrations). */
export async function copyDatabaseTemplate(dataDir: string): Promise<void> {
  const dir = path.join(os.tmpdir(), `${TEMPLATE_PREFIX}${await templateKey()}`);
  if (!existsSync(path.join(dir, "pglite", "PG_VERSION"))) await makeTemplate(dir);
  await cp(path.join(dir, "pglite"), path.join(dataDir, "pglite"), { recursive: true });
}
