/**
 * `npm run db:diff`: prints the SQL that takes a database built from prisma/migrations to prisma/schema.prisma,
 * offline (wasm schema engine, in-memory PGlite).
 *
 *   npm run db:diff                       print the pending SQL
 *   npm run db:diff -- --create add_x     also write it to prisma/migrations/<UTC timestamp>_add_x/migration.sql
 *   npm run db:diff -- --check            exit 1 when the migrations do not produce the schema (CI)
 */
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { parseArgs } from "node:util";
import { MIGRATIONS_DIR } from "../../subgraphs/shared/db/migrations.js";
import { diffMigrationsToSchema } from "./migrations-diff.js";

const { values } = parseArgs({ options: { create: { type: "string" }, check: { type: "boolean", default: false } } });

const diff = await diffMigrationsToSchema();
process.stdout.write(diff.sql.endsWith("\n") ? diff.sql : `${diff.sql}\n`);

if (values.create !== undefined) {
  if (!/^[a-z0-9_]+$/.test(values.create)) throw new Error("--create takes a snake_case name, e.g. add_spend_totals");
  if (diff.empty) {
    process.stderr.write("schema.prisma and the migrations already agree; no migration written\n");
  } else {
    const folder = path.join(MIGRATIONS_DIR, `${utcTimestamp(new Date())}_${values.create}`);
    await mkdir(folder);
    await writeFile(path.join(folder, "migration.sql"), diff.sql);
    process.stderr.write(`wrote ${path.relative(process.cwd(), path.join(folder, "migration.sql"))}\n`);
  }
}
if (values.check && !diff.empty) process.exitCode = 1;

/** Prisma's folder prefix: YYYYMMDDHHMMSS in UTC. */
function utcTimestamp(date: Date): string {
  return date.toISOString().replace(/[-:T]/g, "").slice(0, 14);
}
