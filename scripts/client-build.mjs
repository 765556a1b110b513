#!/usr/bin/env node
/**
 * `npm run client:build` (and the client package's `prepack`): builds clients/typescript/dist/ from its sources.
 *   dist/index.js   one ES module bundled by esbuild from src/index.ts with the repository code the flows reuse
 *                   (the evidence kit, the monetization message and the stream formats library), so the package stands alone; npm packages stay imports (its package.json dependencies);
 *   dist/types/     declarations by tsc (clients/typescript/tsconfig.json), the package's `types` entry
 *                   dist/types/clients/typescript/src/index.d.ts beside those of the repository modules it names.
 * Node 20.19+, like the platform.
 */
import { execFileSync } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const dir = path.join(root, "clients", "typescript");
const pkg = JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8"));

rmSync(path.join(dir, "dist"), { recursive: true, force: true });
const result = await build({
  entryPoints: [path.join(dir, "src", "index.ts")],
  outfile: path.join(dir, "dist", "index.js"),
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  // Every npm package is the installer's to resolve: declared in the package's dependencies (checked below).
  packages: "external",
  metafile: true,
  logLevel: "warning",
});
const imported = new Set(
  Object.values(result.metafile.outputs)
    .flatMap((output) => output.imports)
    .filter((entry) => entry.external && !entry.path.startsWith("node:"))
    .map((entry) => entry.path.split("/").slice(0, entry.path.startsWith("@") ? 2 : 1).join("/")),
);
const undeclared = [...imported].filter((name) => !(name in (pkg.dependencies ?? {})));
if (undeclared.length > 0) {
  console.error(`client-build: dist/index.js imports packages its package.json does not declare: ${undeclared.join(", ")}`);
  process.exit(1);
}
execFileSync(process.execPath, [path.join(root, "node_modules", "typescript", "bin", "tsc"), "-p", path.join(dir, "tsconfig.json")], { stdio: "inherit" });
console.log(`client-build: clients/typescript/dist/ (${imported.size} package imports: ${[...imported].sort().join(", ")})`);
