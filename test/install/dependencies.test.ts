/**
 * What `npm install` resolves must be true to the promises of package.json and the README: every locked package
 * runs on the lowest Node version we declare (no EBADENGINE), every install script is decided in `allowScripts` and
 * explained in docs/operations.md, nothing the platform loads at run time is a devDependency, and no dependency is
 * declared that nothing imports.
 */
import { existsSync, readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import semver from "semver";
import { describe, expect, it } from "vitest";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const read = (file: string) => readFileSync(path.join(root, file), "utf8");
const pkg = JSON.parse(read("package.json")) as {
  engines: { node: string };
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  allowScripts?: Record<string, boolean>;
};
const lock = JSON.parse(read("package-lock.json")) as {
  packages: Record<string, { version?: string; engines?: { node?: string } | string[]; hasInstallScript?: boolean }>;
};
const lowestNode = semver.minVersion(pkg.engines.node)!.version;

const packageName = (lockPath: string) => lockPath.slice(lockPath.lastIndexOf("node_modules/") + "node_modules/".length);

describe("npm install on the lowest supported Node", () => {
  it(`every locked package declares an engine range that admits Node ${lowestNode}`, () => {
    const refusing = Object.entries(lock.packages)
      .filter(([lockPath, entry]) => lockPath !== "" && entry.engines && !Array.isArray(entry.engines) && entry.engines.node)
      .filter(([, entry]) => !semver.satisfies(lowestNode, (entry.engines as { node: string }).node))
      .map(([lockPath, entry]) => `${packageName(lockPath)}@${entry.version} wants ${(entry.engines as { node: string }).node}`);
    expect(refusing).toEqual([]);
  });

  it("the README names the same Node version and the platform of the embedded chain", () => {
    const quickStart = read("README.md").split("## Quick start")[1]!.split("```")[0]!;
    expect(quickStart).toContain(`Node ${lowestNode.replace(/\.0$/, "")}+`);
    expect(quickStart).toContain("Linux x64");
  });

  it("every package with an install script is approved or denied in allowScripts, and docs/operations.md says why", () => {
    const withScripts = [...new Set(Object.entries(lock.packages).filter(([p, e]) => p !== "" && e.hasInstallScript).map(([p]) => packageName(p)))];
    expect(withScripts.length).toBeGreaterThan(0);
    const undecided = withScripts.filter((name) => typeof pkg.allowScripts?.[name] !== "boolean");
    expect(undecided).toEqual([]);
    const operations = read("docs/operations.md");
    const unexplained = withScripts.filter((name) => !operations.includes(`\`${name}\``));
    expect(unexplained).toEqual([]);
  });
});

/** Bare package names imported by a module and, transitively, by the project modules it imports. */
function importedPackages(entries: string[]): Set<string> {
  const packages = new Set<string>();
  const seen = new Set<string>();
  const pending = entries.map((entry) => path.join(root, entry));
  const specifier = /(?:\bfrom\s*|\bimport\s*\(\s*|\brequire(?:\.resolve)?\s*\(\s*|^\s*import\s+)["']([^"']+)["']/gm;
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    for (const [, target] of read(path.relative(root, file)).matchAll(specifier)) {
      if (target!.startsWith(".")) {
        const resolved = path.resolve(path.dirname(file), target!).replace(/\.js$/, ".ts");
        if (resolved.endsWith(".ts") && existsSync(resolved)) pending.push(resolved);
      } else if (!target!.startsWith("node:")) {
        const parts = target!.split("/");
        packages.add(target!.startsWith("@") ? `${parts[0]}/${parts[1]}` : parts[0]!);
      }
    }
  }
  return packages;
}

describe("declared dependencies", () => {
  const runtime = importedPackages(["gateway/main.ts", "gateway/cli/main.ts"]);

  it("nothing `npm start` or the CLI loads is a devDependency (solc compiles contracts only under `npm run contracts`)", () => {
    expect(runtime.size).toBeGreaterThan(10);
    expect(runtime.has("ethers")).toBe(true);
    expect([...runtime].filter((name) => name in pkg.devDependencies)).toEqual([]);
    expect(pkg.devDependencies.solc).toBeDefined();
    expect(pkg.dependencies.solc).toBeUndefined();
  });

  it("every dependency is imported somewhere in the project", () => {
    const sources = ["gateway", "rest-shim", "subgraphs", "prisma", "scripts", "test"].flatMap((dir) =>
      (readdirSync(path.join(root, dir), { recursive: true }) as string[])
        .filter((file) => /\.(ts|mjs)$/.test(file) && !file.includes("generated"))
        .map((file) => path.join(dir, file)),
    );
    const imported = importedPackages(sources);
    // Used without an import: the CLIs npm scripts run, the driver Prisma's generated client loads, pino's
    // development transport (loaded by name in a worker: subgraphs/shared/observability/log.ts), and the packages
    // whose browser bundles the explorer pages serve (rest-shim/openapi/explorer.ts, gateway/public-pages.ts).
    const usedByScripts = new Set([
      ...["tsx", "prisma", "@prisma/client", "typescript", "vitest", "pino-pretty"],
      ...["swagger-ui-dist", "graphiql", "react", "react-dom"],
    ]);
    const unused = Object.keys(pkg.dependencies).filter((name) => !imported.has(name) && !usedByScripts.has(name));
    expect(unused).toEqual([]);
    expect(pkg.dependencies).not.toHaveProperty("graphql-tag");
  });
});
