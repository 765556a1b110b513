/**
 * The committed migration set: prisma/migrations/<timestamp>_<name>/migration.sql, in Prisma's folder layout, applied
 * in folder-name order.
 */
import { createHash } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const MIGRATIONS_DIR = fileURLToPath(new URL("../../../prisma/migrations/", import.meta.url));

export interface Migration {
  /** Folder name, e.g. `20261122023209_init`; the identity recorded in the tracking table. */
  name: string;
  sql: string;
  /** Lowercase hex SHA-256 of the SQL with line endings normalised. */
  checksum: string;
}

/**
 * Line endings are normalised before hashing so a checkout that converts LF to CRLF does not look like an edited
 * migration.
 */
export function migrationChecksum(sql: string): string {
  return createHash("sha256").update(sql.replace(/\r\n/g, "\n")).digest("hex");
}

const MIGRATION_FOLDER = /^\d{14}_\w+$/;

export async function loadMigrations(dir: string = MIGRATIONS_DIR): Promise<Migration[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const names = entries.filter((entry) => entry.isDirectory()).map((entry) => entry.name);
  // A misnamed folder would otherwise be skipped silently and its tables never created.
  const misnamed = names.filter((name) => !MIGRATION_FOLDER.test(name));
  if (misnamed.length > 0) {
    throw new Error(`migration folders must be named <14-digit timestamp>_<name>: ${misnamed.join(", ")}`);
  }
  names.sort();
  return Promise.all(
    names.map(async (name) => {
      const sql = await readFile(path.join(dir, name, "migration.sql"), "utf8");
      return { name, sql, checksum: migrationChecksum(sql) };
    }),
  );
}
