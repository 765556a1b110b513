/**
 * The client package (clients/typescript) stands on its own: the CLI uses it, never the other way round, so no file
 * under clients/typescript/ imports from gateway/cli/ (the stream steps the CLI shares live in the client's
 * src/stream/). An import cycle would also break the packed client, which ships without gateway/cli.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "../..");
const CLIENT = path.join(root, "clients/typescript");

const sources = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.name === "node_modules" || e.name === "dist" ? [] : e.isDirectory() ? sources(path.join(dir, e.name)) : /\.(ts|mts|mjs|js)$/.test(e.name) ? [path.join(dir, e.name)] : [],
  );

/** Every module specifier a file names: static and dynamic imports, re-exports, require. */
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|\brequire\s*\(\s*)["'`]([^"'`]+)["'`]/g;

/** The specifiers of `text` (file at `file`) that resolve into gateway/cli/. */
function cliImports(file: string, text: string): string[] {
  const cli = path.join(root, "gateway/cli");
  return [...text.matchAll(SPECIFIER)]
    .map((m) => m[1]!)
    .filter((spec) => spec.startsWith(".") && path.resolve(path.dirname(file), spec).startsWith(cli + path.sep));
}

describe("the client package does not depend on the CLI", () => {
  it("no file under clients/typescript/ imports from gateway/cli/", () => {
    const files = sources(CLIENT);
    expect(files.length).toBeGreaterThan(10);
    const offenders = files.flatMap((file) => cliImports(file, readFileSync(file, "utf8")).map((spec) => `${path.relative(root, file)}: ${spec}`));
    expect(offenders).toEqual([]);
  });

  it("the guard sees an import from the CLI, however it is written", () => {
    const flow = path.join(CLIENT, "src/flows/stream.ts");
    expect(cliImports(flow, `import { CliError } from "../../../../gateway/cli/command.js";`)).toHaveLength(1);
    expect(cliImports(flow, `export { StreamApi } from "../../../../gateway/cli/commands/stream/api.js";`)).toHaveLength(1);
    expect(cliImports(flow, `const m = await import("../../../../gateway/cli/main.js");`)).toHaveLength(1);
    expect(cliImports(flow, `import type { X } from "../../../../gateway/cli-notes/x.js";`)).toEqual([]);
    expect(cliImports(flow, `import { ok } from "../clients.js";`)).toEqual([]);
  });
});
