#!/usr/bin/env node
/**
 * `prisma generate`, offline. Runs as the package's `postinstall` (and `npm run db:generate`), so `npm install` and
 * `npm ci` both end with the client in subgraphs/shared/db/generated.
 *
 * Prisma 7's CLI downloads its native schema engine before `generate` and fails without network, unless
 * PRISMA_SCHEMA_ENGINE_BINARY names an existing file. `generate` itself only uses the bundled wasm, so a committed
 * placeholder is enough; a real binary set by the caller is left alone.
 */
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(import.meta.url);
const prismaPackageJson = require.resolve("prisma/package.json", { paths: [root] });
const prismaCli = path.join(path.dirname(prismaPackageJson), require(prismaPackageJson).bin.prisma);

const env = {
  ...process.env,
  PRISMA_SCHEMA_ENGINE_BINARY:
    process.env.PRISMA_SCHEMA_ENGINE_BINARY || path.join(root, "prisma", ".schema-engine-placeholder"),
  // No update check, no telemetry: both would try the network.
  PRISMA_HIDE_UPDATE_MESSAGE: "1",
  CHECKPOINT_DISABLE: "1",
  PRISMA_ENGINES_CHECKSUM_IGNORE_MISSING: "1",
};

const result = spawnSync(process.execPath, [prismaCli, "generate", "--schema", path.join(root, "prisma", "schema.prisma")], {
  cwd: root,
  env,
  stdio: "inherit",
});
if (result.error) throw result.error;
process.exit(result.status ?? 1);
