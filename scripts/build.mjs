#!/usr/bin/env node
/**
 * `npm run build` (and the package's `prepare`, so `npm install` and `npm ci` end with it): the TypeScript of the
 * platform's run-time trees, transpiled file by file with esbuild into `dist/`, in the same layout, beside copies of
 * every non-TypeScript file those trees read at run time (schema.graphql, the supergraph, contract artifacts,
 * migrations, ...). `npm start` and `npm run cli` run `dist/`; `npm run dev` and the tests run the sources with tsx.
 *
 * esbuild, not tsc: it is the transform tsx (and vitest) apply in development, so the compiled code behaves as the
 * tested code does (legacy decorators from tsconfig's experimentalDecorators; no decorator metadata, which is why
 * every type-graphql @Field/@Arg names its type), and it builds the whole tree in well under a second. Type checking
 * stays with `npm run typecheck`.
 *
 *   node scripts/build.mjs              build into dist/
 *   node scripts/build.mjs --if-stale   build only when a source is newer than the last build, or a file came or went
 *   node scripts/build.mjs --outdir d   build into d (a directory inside the project, so packages still resolve)
 * `npm start` and `npm run cli` go through scripts/run-built.mjs, which does what --if-stale does in its own process.
 *
 * Files are written through a temporary name and renamed, so a process starting from dist/ while another rebuilds it
 * never reads half a file.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
/** The trees `npm start` and the CLI load (prisma/: the migrations applied at boot; clients/typescript/src: the client package the CLI calls the platform through). */
export const SOURCE_DIRS = ["gateway", "subgraphs", "rest-shim", "prisma", "clients/typescript/src"];
const STAMP = ".build-stamp";

/** Every file under the source trees, relative to the root. */
function sourceFiles() {
  return SOURCE_DIRS.flatMap((dir) =>
    readdirSync(path.join(root, dir), { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => path.relative(root, path.join(entry.parentPath, entry.name))),
  );
}

/**
 * ethers as one module: its ESM build is about 470 files, and resolving and loading them took most of a chain
 * command's start-up; one bundled file of the same code loads in a fraction of that. Every compiled import of
 * "ethers" is pointed at it, so a process holds one copy (nothing else in node_modules imports ethers).
 */
const VENDOR_ETHERS = path.join("vendor", "ethers.js");

function toVendorEthers(code, file, vendorEthers) {
  let relative = path.relative(path.dirname(file), vendorEthers).split(path.sep).join("/");
  if (!relative.startsWith(".")) relative = `./${relative}`;
  return code.replace(/(\bfrom\s*|\bimport\s*\(\s*)"ethers"/g, `$1${JSON.stringify(relative)}`);
}

const isTypeScript = (file) => file.endsWith(".ts") && !file.endsWith(".d.ts");

/**
 * Stale: a source, package.json or tsconfig.json (the version and the transform settings) is newer than the stamp,
 * or the number of sources changed since (a file added with an old time, or deleted).
 */
function isStale(outdir) {
  const stamp = path.join(outdir, STAMP);
  if (!existsSync(stamp)) return true;
  const built = statSync(stamp).mtimeMs;
  const files = sourceFiles();
  if (readFileSync(stamp, "utf8").split("\n")[1] !== String(files.length)) return true;
  return [...files, "package.json", "tsconfig.json"].some((file) => statSync(path.join(root, file)).mtimeMs > built);
}

/** Builds `outdir` (default dist/) when it is stale; answers whether it built. */
export async function ensureBuilt(outdir = path.join(root, "dist")) {
  if (!isStale(outdir)) return false;
  const started = performance.now();
  const { modules } = await build(outdir);
  process.stderr.write(`build: ${modules} modules -> ${path.relative(root, outdir)}/ in ${Math.round(performance.now() - started)} ms\n`);
  return true;
}

function writeAtomically(file, contents) {
  mkdirSync(path.dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, contents);
  renameSync(temporary, file);
}

/** Removes files of an earlier build whose source is gone. */
function removeOrphans(outdir, written) {
  if (!existsSync(outdir)) return;
  for (const entry of readdirSync(outdir, { recursive: true, withFileTypes: true })) {
    const file = path.join(entry.parentPath, entry.name);
    if (entry.isFile() && !written.has(file) && !file.endsWith(".tmp")) rmSync(file, { force: true });
  }
}

export async function build(outdir) {
  const { build: esbuild } = await import("esbuild");
  const files = sourceFiles();
  const result = await esbuild({
    absWorkingDir: root,
    entryPoints: files.filter(isTypeScript),
    outdir,
    outbase: ".",
    bundle: false,
    format: "esm",
    platform: "node",
    target: "node20",
    sourcemap: "linked",
    tsconfig: path.join(root, "tsconfig.json"),
    logLevel: "warning",
    write: false,
  });
  const written = new Set([path.join(outdir, STAMP)]);
  const vendorEthers = path.join(outdir, VENDOR_ETHERS);
  for (const output of result.outputFiles) {
    writeAtomically(output.path, output.path.endsWith(".js") ? toVendorEthers(output.text, output.path, vendorEthers) : output.contents);
    written.add(output.path);
  }
  const vendor = await esbuild({
    absWorkingDir: root,
    stdin: { contents: 'export * from "ethers";', resolveDir: root, sourcefile: "ethers-entry.js" },
    outfile: vendorEthers,
    bundle: true,
    format: "esm",
    platform: "node",
    target: "node20",
    // ws (ethers' WebSocketProvider) stays a package: it requires optional native modules by name.
    external: ["ws"],
    logLevel: "warning",
    write: false,
  });
  for (const output of vendor.outputFiles) {
    writeAtomically(output.path, output.contents);
    written.add(output.path);
  }
  for (const file of files.filter((f) => !f.endsWith(".ts"))) {
    const target = path.join(outdir, file);
    writeAtomically(target, readFileSync(path.join(root, file)));
    written.add(target);
  }
  // Marks the tree as ES modules and carries the version the OpenAPI documents report.
  const { name, version } = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8"));
  const manifest = path.join(outdir, "package.json");
  writeAtomically(manifest, `${JSON.stringify({ name, version, private: true, type: "module" }, null, 2)}\n`);
  written.add(manifest);
  removeOrphans(outdir, written);
  // Second line: how many sources there were (isStale).
  writeAtomically(path.join(outdir, STAMP), `${new Date().toISOString()}\n${files.length}\n`);
  return { modules: result.outputFiles.filter((f) => f.path.endsWith(".js")).length };
}

const isMain = process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  const { values } = parseArgs({ options: { "if-stale": { type: "boolean" }, outdir: { type: "string" } } });
  const outdir = path.resolve(root, values.outdir ?? "dist");
  if (values["if-stale"]) await ensureBuilt(outdir);
  else {
    const started = performance.now();
    const { modules } = await build(outdir);
    process.stderr.write(`build: ${modules} modules -> ${path.relative(root, outdir)}/ in ${Math.round(performance.now() - started)} ms\n`);
  }
}
