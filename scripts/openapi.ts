/**
 * `npm run openapi`: writes docs/openapi/<listener>.json, the documents the REST listeners serve at /openapi.json,
 * with examples from the demo fixture of a throw-away platform (started here, on free ports, then closed).
 * `--check` compares instead of writing and exits 1 on drift.
 */
import "reflect-metadata";
import { mkdtemp, readFile, rm, writeFile, mkdir } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { loadConfig } from "../subgraphs/shared/config.js";
import { consoleLogger, startPlatform } from "../gateway/platform.js";
import { openApiDocuments, OPENAPI_DIR } from "../rest-shim/openapi/files.js";

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), "..");
const check = process.argv.includes("--check");
const dataDir = await mkdtemp(path.join(os.tmpdir(), "openapi-"));
// Defaults only (not this shell's environment): the committed documents show the default limits.
const config = loadConfig({
  DATA_DIR: dataDir,
  HTTP_PORT: "0", MARKETS_PORT: "0", GRAPHQL_PORT: "0", ANVIL_PORT: "0", MCR2_PORT: "0", ALTCHAIN_RPC_PORT: "0", DEMO_PROVIDER_PORT: "0",
  // No metrics listener: its fixed default port may be taken by a platform already running on this machine.
  ADMIN_PORT: "off",
  LOG_LEVEL: "silent",
});
const platform = await startPlatform({ kind: "all" }, config, consoleLogger("silent"));
let drift = false;
try {
  await mkdir(path.join(root, OPENAPI_DIR), { recursive: true });
  for (const [file, text] of openApiDocuments(config, platform.chain!.demo!)) {
    const target = path.join(root, file);
    if (check) {
      const current = await readFile(target, "utf8").catch(() => "");
      if (current !== text) {
        drift = true;
        console.error(`openapi: ${file} is out of date; run npm run openapi`);
      }
    } else {
      await writeFile(target, text);
      console.log(`openapi: wrote ${file}`);
    }
  }
} finally {
  await platform.close();
  await rm(dataDir, { recursive: true, force: true });
}
process.exit(drift ? 1 : 0);
