/**
 * The shape of the source tree, as docs/architecture.md describes it: shared code lives in subgraphs/shared (no
 * subgraph imports another, and shared imports none), folders stay small enough to read (about 20 files) and so do
 * files (no hand-written source file much over 300 lines), no two files in a folder have names one letter apart
 * (`x.resolver.ts` beside `x.resolvers.ts`), and every family folder of the markets subgraph builds its services in
 * its own index.ts.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "../..");
const SUBGRAPHS = ["verify", "ratings", "markets"];
const TREES = ["subgraphs", "rest-shim", "gateway", "test", "scripts"];
const SKIP = new Set(["node_modules", "generated", "dist", ".data"]);
/** A folder may hold this many files; subfolders do not count. */
const MAX_FILES_PER_FOLDER = 21;
/** A hand-written source file may be this long: about 300 lines, with room for a few more. */
const MAX_LINES_PER_FILE = 400;

function folders(dir: string): string[] {
  const entries = readdirSync(path.join(root, dir), { withFileTypes: true });
  return [dir, ...entries.filter((e) => e.isDirectory() && !SKIP.has(e.name)).flatMap((e) => folders(path.join(dir, e.name)))];
}

const filesIn = (dir: string) =>
  readdirSync(path.join(root, dir), { withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => e.name);

const sourcesUnder = (dir: string) => folders(dir).flatMap((d) => filesIn(d).filter((f) => /\.(ts|mjs)$/.test(f)).map((f) => path.join(d, f)));

/** The repo-relative targets of a file's relative import specifiers. */
function relativeImports(file: string): string[] {
  const text = readFileSync(path.join(root, file), "utf8");
  const specs = [...text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)["'](\.{1,2}\/[^"']+)["']/g)].map((m) => m[1]);
  return specs.map((spec) => path.normalize(path.join(path.dirname(file), spec)));
}

/** Levenshtein distance, for names one edit apart. */
function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let previous = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const saved = row[j];
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] === b[j - 1] ? 0 : 1));
      previous = saved;
    }
  }
  return row[b.length];
}

describe("import boundaries", () => {
  it("subgraphs/shared imports no subgraph", () => {
    const offending = sourcesUnder("subgraphs/shared").flatMap((file) =>
      relativeImports(file)
        .filter((target) => SUBGRAPHS.some((name) => target.startsWith(`subgraphs/${name}/`)))
        .map((target) => `${file} -> ${target}`),
    );
    expect(offending).toEqual([]);
  });

  it("no subgraph imports another", () => {
    const offending = SUBGRAPHS.flatMap((name) =>
      sourcesUnder(`subgraphs/${name}`).flatMap((file) =>
        relativeImports(file)
          .filter((target) => SUBGRAPHS.some((other) => other !== name && target.startsWith(`subgraphs/${other}/`)))
          .map((target) => `${file} -> ${target}`),
      ),
    );
    expect(offending).toEqual([]);
  });

  it("the checks see real imports (the walk is not empty)", () => {
    const imports = sourcesUnder("subgraphs/markets").flatMap(relativeImports);
    expect(imports.filter((target) => target.startsWith("subgraphs/shared/")).length).toBeGreaterThan(50);
  });
});

describe("folders", () => {
  const all = TREES.flatMap(folders);

  it(`hold at most ${MAX_FILES_PER_FOLDER} files each, test suites included`, () => {
    const crowded = all
      .map((dir) => ({ dir, files: filesIn(dir).length }))
      .filter(({ files }) => files > MAX_FILES_PER_FOLDER);
    expect(crowded).toEqual([]);
  });

  it(`hold no hand-written source file over ${MAX_LINES_PER_FILE} lines, test suites included`, () => {
    const sources = all.flatMap((dir) => filesIn(dir).filter((f) => /\.(ts|mjs)$/.test(f)).map((f) => path.join(dir, f)));
    expect(sources.length).toBeGreaterThan(500);
    const long = sources
      .map((file) => ({ file, lines: readFileSync(path.join(root, file), "utf8").split("\n").length }))
      .filter(({ lines }) => lines > MAX_LINES_PER_FILE);
    expect(long).toEqual([]);
  });

  it("hold no two source files whose names are one letter apart", () => {
    const pairs = all.flatMap((dir) => {
      const names = filesIn(dir).filter((f) => f.endsWith(".ts"));
      return names.flatMap((a, i) => names.slice(i + 1).filter((b) => distance(a, b) === 1).map((b) => `${dir}: ${a} / ${b}`));
    });
    expect(pairs).toEqual([]);
  });

  it("each markets family builds its services in its own index.ts", () => {
    const families = ["machines", "work", "audit", "orders", "stream/seller", "stream/orders", "stream/purchases"];
    for (const family of families) {
      const index = path.join(root, "subgraphs/markets", family, "index.ts");
      expect(statSync(index).isFile(), family).toBe(true);
      expect(readFileSync(index, "utf8"), family).toMatch(/export (async )?function build\w+Services\(/);
    }
    const composed = readFileSync(path.join(root, "subgraphs/markets/index.ts"), "utf8");
    for (const family of families) expect(composed, family).toContain(`"./${family}/index.js"`);
  });
});
