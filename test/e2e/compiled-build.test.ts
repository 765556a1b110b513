/**
 * The compiled build `npm start` and `npm run cli` run (scripts/build.mjs): every module of the
 * run-time trees and every file they read at run time lands in the output, the compiled modules find those files,
 * the compiled CLI answers as the README says, each CLI command loads only the packages it needs (ethers only for the
 * chain, never the database client or the GraphQL server stack), and a build is redone only when it is stale.
 * Speed is measured in `npm run bench` (test/bench/cli-startup.ts), not here.
 *
 * The build goes to a directory of its own inside node_modules/.cache, so packages resolve as from dist/ and the
 * project's dist/ is left alone.
 */
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, utimesSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const run = promisify(execFile);
let outdir: string;
let emptyDataDir: string;

/** Runs node with `args` in the project root; never throws: answers exit code and output. */
async function node(args: string[], env: Record<string, string> = {}) {
  try {
    const { stdout, stderr } = await run(process.execPath, args, { cwd: root, env: { ...process.env, LOG_LEVEL: "silent", ...env } });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

const build = (...flags: string[]) => node(["scripts/build.mjs", "--outdir", outdir, ...flags]);

/** A resolve hook reporting each package a process loads on stderr (`[package] name`; ethers is the build's vendor/ethers.js). */
const TRACE_HOOK = `data:text/javascript,${encodeURIComponent(`
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  // The build itself sits in node_modules/.cache: its vendor bundle first, then packages (not the .cache directory).
  const match = /\\/vendor\\/([^/]+)\\.js$/.exec(result.url) ?? /\\/node_modules\\/((?:@[^/.]+\\/)?[^/.][^/]*)\\/(?!compiled-build-test)/.exec(result.url);
  if (match) process.stderr.write("[package] " + match[1] + "\\n");
  return result;
}`)}`;
const TRACE = `data:text/javascript,${encodeURIComponent(`import { register } from "node:module"; register(${JSON.stringify(TRACE_HOOK)});`)}`;

/** Runs the compiled CLI; `packages`: what it loaded. */
async function cli(args: string[], env: Record<string, string> = {}) {
  const result = await node(["--import", TRACE, path.join(outdir, "gateway", "cli", "main.js"), ...args], { DATA_DIR: emptyDataDir, ...env });
  const packages = new Set([...result.stderr.matchAll(/^\[package\] (.+)$/gm)].map((match) => match[1]!));
  return { ...result, packages, stderr: result.stderr.replace(/^\[package\] .+\n/gm, "") };
}

/** Files under the run-time trees, relative to the root. */
function sources(): string[] {
  return ["gateway", "subgraphs", "rest-shim", "prisma"].flatMap((dir) =>
    readdirSync(path.join(root, dir), { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => path.relative(root, path.join(entry.parentPath, entry.name))),
  );
}

beforeAll(async () => {
  mkdirSync(path.join(root, "node_modules", ".cache"), { recursive: true });
  outdir = mkdtempSync(path.join(root, "node_modules", ".cache", "compiled-build-test-"));
  emptyDataDir = mkdtempSync(path.join(os.tmpdir(), "compiled-cli-"));
  const built = await build();
  expect(built.code, built.stderr).toBe(0);
});
afterAll(() => {
  if (outdir) rmSync(outdir, { recursive: true, force: true });
  if (emptyDataDir) rmSync(emptyDataDir, { recursive: true, force: true });
});

describe("the compiled build", () => {
  it("has a module for every TypeScript source and a byte-equal copy of every other file, as ES modules with the package's version", () => {
    const files = sources();
    expect(files.filter((file) => file.endsWith(".graphql")).length).toBeGreaterThanOrEqual(4);
    for (const file of files) {
      if (file.endsWith(".ts")) expect(readFileSync(path.join(outdir, file.replace(/\.ts$/, ".js")), "utf8").length, file).toBeGreaterThan(0);
      else expect(readFileSync(path.join(outdir, file)).equals(readFileSync(path.join(root, file))), file).toBe(true);
    }
    // ethers is one bundled module (scripts/build.mjs): no compiled module imports the package itself.
    const compiled = files.filter((file) => file.endsWith(".ts")).map((file) => readFileSync(path.join(outdir, file.replace(/\.ts$/, ".js")), "utf8"));
    expect(compiled.filter((code) => /\bfrom\s*"ethers"|import\(\s*"ethers"\s*\)/.test(code))).toEqual([]);
    expect(compiled.filter((code) => code.includes("vendor/ethers.js")).length).toBeGreaterThan(10);
    const manifest = JSON.parse(readFileSync(path.join(outdir, "package.json"), "utf8"));
    expect(manifest).toMatchObject({ type: "module", version: JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")).version });
  });

  it("finds what it reads at run time: the supergraph, the contract artifacts, the migrations, the explorer bundles", async () => {
    const url = (file: string) => JSON.stringify(pathToFileURL(path.join(outdir, file)).href);
    const script = `
      const { readCommittedSupergraph } = await import(${url("gateway/compose.js")});
      const { contractInterface } = await import(${url("subgraphs/shared/chain/artifacts.js")});
      const { MIGRATIONS_DIR } = await import(${url("subgraphs/shared/db/migrations.js")});
      const { readdirSync } = await import("node:fs");
      const { createRequire } = await import("node:module");
      const require = createRequire(${url("subgraphs/shared/http/package-assets.js")});
      console.log(JSON.stringify({
        supergraph: await readCommittedSupergraph(),
        registry: contractInterface("MachineRegistry").fragments.length,
        migrations: readdirSync(MIGRATIONS_DIR).sort(),
        swagger: require.resolve("swagger-ui-dist/package.json").length > 0,
      }));`;
    const result = await node(["--input-type=module", "-e", script]);
    expect(result.code, result.stderr).toBe(0);
    const found = JSON.parse(result.stdout);
    expect(found.supergraph).toBe(readFileSync(path.join(root, "gateway", "supergraph.graphql"), "utf8"));
    expect(found.registry).toBeGreaterThan(0);
    expect(found.migrations).toEqual(readdirSync(path.join(root, "prisma", "migrations")).sort());
    expect(found.swagger).toBe(true);
  });

  it("is rebuilt by --if-stale only when stale", async () => {
    const fresh = await build("--if-stale");
    expect(fresh.code).toBe(0);
    expect(fresh.stderr).not.toContain("build:");
    // A stamp older than every source: the next --if-stale builds again.
    utimesSync(path.join(outdir, ".build-stamp"), new Date(0), new Date(0));
    const stale = await build("--if-stale");
    expect(stale.code, stale.stderr).toBe(0);
    expect(stale.stderr).toMatch(/^build: \d+ modules -> /m);
    expect((await build("--if-stale")).stderr).not.toContain("build:");
  });
});

describe("the compiled CLI", () => {
  const HEAVY = ["ethers", "pkijs", "@peculiar/x509", "@prisma/client", "type-graphql", "@apollo/server", "@apollo/gateway", "fastify", "graphql"];

  it("prints help and usage errors with the documented exit codes, loading none of the heavy packages", async () => {
    const help = await cli(["--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/controller[\s\S]*deactivate[\s\S]*attest[\s\S]*evidence[\s\S]*market[\s\S]*demo/);
    expect(HEAVY.filter((name) => help.packages.has(name))).toEqual([]);
    const unknown = await cli(["frobnicate"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown command "frobnicate"');
    const group = await cli(["evidence", "pending", "--help"]);
    expect(group.code).toBe(0);
    expect(group.stdout).toContain("--table");
  });

  it("demo without a fixture fails with exit code 1 and its message, loading no heavy package", async () => {
    const demo = await cli(["demo"]);
    expect(demo.code).toBe(1);
    expect(demo.stderr).toBe(`error: no demo fixture at ${path.join(emptyDataDir, "demo.json")}: start the platform first\n`);
    expect(demo.stdout).toBe("");
    expect(HEAVY.filter((name) => demo.packages.has(name))).toEqual([]);
  });

  it("loads ethers only in the commands that talk to the chain, and no command loads the database or GraphQL server stack", async () => {
    const closed = "http://127.0.0.1:9";
    const pending = await cli(["evidence", "pending"], { GRAPHQL_URL: `${closed}/graphql` });
    expect(pending.code).toBe(1);
    expect(HEAVY.filter((name) => pending.packages.has(name))).toEqual([]);
    const market = await cli(["market", "search", "--machine", "mach_x", "--api", closed]);
    expect(market.code).toBe(1);
    const attest = await cli(["attest", "chip", "--machine", "2"], { CHAIN_RPC_URL: closed });
    expect(attest.code).toBe(1);
    expect(attest.stderr).toContain(`chain at ${closed} is not answering`);
    expect(attest.packages.has("ethers")).toBe(true);
    for (const command of [pending, market, attest]) {
      // Exit code 1 for the documented reason, not a module the compiled build left out (the client package's).
      expect(command.stderr).not.toContain("ERR_MODULE_NOT_FOUND");
      expect(HEAVY.filter((name) => name !== "ethers" && command.packages.has(name))).toEqual([]);
    }
  });
});
