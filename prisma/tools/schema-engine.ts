/**
 * Prisma's schema engine compiled to wasm, driven through a driver adapter: it diffs schemas without the native
 * engine binary, which Prisma 7's CLI cannot download here (docs/database.md).
 *
 * Uses `@prisma/schema-engine-wasm` directly (the package `@prisma/internals` loads it from; its wasm loader is not
 * exported in a usable form). Internal Prisma API: the version is pinned next to prisma's in package.json.
 */
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { bindMigrationAwareSqlAdapterFactory } from "@prisma/driver-adapter-utils";
import type { SqlMigrationAwareDriverAdapterFactory } from "@prisma/driver-adapter-utils";
import * as bindings from "@prisma/schema-engine-wasm/schema_engine_bg";
import type { SchemaEngine, SchemaFilter } from "@prisma/schema-engine-wasm/schema_engine_bg";
import { TRACKING_TABLE } from "../../subgraphs/shared/db/migrate.js";

export const SCHEMA_PATH = new URL("../schema.prisma", import.meta.url);

/** The migration runner's own table is not in schema.prisma; the engine must neither create nor drop it. */
const FILTERS: SchemaFilter = { externalTables: [`public.${TRACKING_TABLE}`], externalEnums: [] };

export interface SchemaDiff {
  /** True when the database already matches the schema. */
  empty: boolean;
  /** SQL that takes the database to the schema (a comment only when empty). */
  sql: string;
}

/** Diff the live database behind `adapterFactory` against prisma/schema.prisma. */
export async function diffDatabaseToSchema(adapterFactory: SqlMigrationAwareDriverAdapterFactory): Promise<SchemaDiff> {
  const files = [{ path: "schema.prisma", content: await readFile(SCHEMA_PATH, "utf8") }];
  return withEngine(adapterFactory, files, async (engine) => {
    const result = await engine.diff({
      from: { tag: "schemaDatasource", files, configDir: "." },
      to: { tag: "schemaDatamodel", files },
      script: true,
      exitCode: true,
      filters: FILTERS,
    });
    // With exitCode requested the engine answers 2 when the diff is not empty, as `prisma migrate diff --exit-code`.
    return { empty: result.exitCode === 0, sql: result.stdout ?? "" };
  });
}

async function withEngine<T>(
  adapterFactory: SqlMigrationAwareDriverAdapterFactory,
  files: { path: string; content: string }[],
  use: (engine: SchemaEngine) => Promise<T>,
): Promise<T> {
  await instantiateOnce();
  const engine = await bindings.SchemaEngine.new(
    { datamodels: files.map((f) => [f.path, f.content] as [string, string]) },
    () => undefined, // engine debug log
    bindMigrationAwareSqlAdapterFactory(adapterFactory),
  );
  try {
    return await use(engine);
  } finally {
    engine.free();
  }
}

let instantiated: Promise<void> | undefined;

/** wasm-bindgen keeps module-level state: the wasm must be instantiated once per process, engines created many times. */
function instantiateOnce(): Promise<void> {
  instantiated ??= (async () => {
    const require = createRequire(import.meta.url);
    const wasmPath = require.resolve("@prisma/schema-engine-wasm/schema_engine_bg").replace(/\.js$/, ".wasm");
    const module = new WebAssembly.Module(await readFile(wasmPath));
    const instance = new WebAssembly.Instance(module, { "./schema_engine_bg.js": bindings });
    (bindings as unknown as { __wbg_set_wasm(exports: WebAssembly.Exports): void }).__wbg_set_wasm(instance.exports);
    (instance.exports.__wbindgen_start as () => void)();
  })();
  return instantiated;
}
