/**
 * The schema check: each subgraph's SDL and the supergraph in the working tree against the same files at a git
 * reference, diffed with @graphql-inspector/core into breaking, dangerous and safe changes.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { buildSubgraphSchema } from "@apollo/subgraph";
import { CriticalityLevel, diff, type Change } from "@graphql-inspector/core";
import { buildSchema, parse, type GraphQLSchema } from "graphql";

export type Level = "breaking" | "dangerous" | "safe";

export interface SchemaChange {
  /** Repository-relative file the change is in. */
  readonly file: string;
  readonly level: Level;
  readonly type: string;
  readonly message: string;
  readonly path?: string;
}

export interface CheckResult {
  /** The commit the reference resolved to. */
  readonly base: string;
  readonly files: readonly string[];
  readonly changes: readonly SchemaChange[];
}

export const SUPERGRAPH_FILE = "gateway/supergraph.graphql";

/** The checked files: every `subgraphs/<name>/schema.graphql` and the supergraph. */
export function schemaFiles(root: string): string[] {
  const subgraphs = readdirSync(path.join(root, "subgraphs"), { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(path.join(root, "subgraphs", entry.name, "schema.graphql")))
    .map((entry) => `subgraphs/${entry.name}/schema.graphql`)
    .sort();
  return [...subgraphs, SUPERGRAPH_FILE];
}

const git = (root: string, args: string[]) => execFileSync("git", args, { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });

/** The commit a reference names; throws with a readable message when it names none. */
export function resolveRef(root: string, ref: string): string {
  try {
    return git(root, ["rev-parse", "--verify", "--quiet", `${ref}^{commit}`]).trim();
  } catch {
    throw new Error(`schema:check: git reference ${ref} names no commit (pass --base <ref>)`);
  }
}

function fileAt(root: string, commit: string, file: string): string | null {
  try {
    return git(root, ["show", `${commit}:${file}`]);
  } catch {
    return null;
  }
}

/** A subgraph SDL (federation directives and all) or the supergraph (join directives defined in the file). */
function schemaOf(file: string, sdl: string): GraphQLSchema {
  if (file === SUPERGRAPH_FILE) return buildSchema(sdl, { assumeValidSDL: true });
  return buildSubgraphSchema(parse(sdl));
}

const LEVELS: Record<CriticalityLevel, Level> = {
  [CriticalityLevel.Breaking]: "breaking",
  [CriticalityLevel.Dangerous]: "dangerous",
  [CriticalityLevel.NonBreaking]: "safe",
};

export async function checkSchemas(root: string, ref: string): Promise<CheckResult> {
  const base = resolveRef(root, ref);
  const files = [...new Set([...schemaFiles(root)])];
  const changes: SchemaChange[] = [];
  for (const file of files) {
    const before = fileAt(root, base, file);
    const working = path.join(root, file);
    const after = existsSync(working) ? readFileSync(working, "utf8") : null;
    if (before === after) continue;
    const found: Change[] = await diff(before === null ? null : schemaOf(file, before), after === null ? null : schemaOf(file, after));
    for (const change of found) {
      changes.push({ file, level: LEVELS[change.criticality.level], type: change.type, message: change.message, ...(change.path ? { path: change.path } : {}) });
    }
  }
  return { base, files, changes };
}
