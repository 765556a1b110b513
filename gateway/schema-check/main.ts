/**
 * `npm run schema:check [-- --base <ref>] [--allow-breaking] [--no-changelog] [--json]`
 *
 * Compares the working tree's subgraph SDL and supergraph with those at `--base` (default: `main`, the last commit on
 * main; CI sets SCHEMA_CHECK_BASE), prints breaking, dangerous and safe changes, records them in
 * docs/schema-changelog.md, and exits 1 on a breaking change unless it is allowed: by `--allow-breaking`, by the
 * marker `[schema-breaking-ok]` in the last commit's message, or by the file `.schema-breaking-allowed` (its text is
 * the reason; delete it once the change has shipped).
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { CHANGELOG_FILE, recordChanges } from "./changelog.js";
import { checkSchemas, type Level } from "./diff.js";

export const ALLOW_MARKER = "[schema-breaking-ok]";
export const ALLOW_FILE = ".schema-breaking-allowed";

function allowedBy(root: string, flag: boolean): string | undefined {
  if (flag) return "--allow-breaking";
  if (existsSync(path.join(root, ALLOW_FILE))) return ALLOW_FILE;
  try {
    const message = execFileSync("git", ["log", "-1", "--format=%B"], { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
    if (message.includes(ALLOW_MARKER)) return `commit message ${ALLOW_MARKER}`;
  } catch {
    // No commit yet: nothing allows it.
  }
  return undefined;
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      base: { type: "string", default: process.env.SCHEMA_CHECK_BASE ?? "main" },
      root: { type: "string", default: process.cwd() },
      "allow-breaking": { type: "boolean", default: false },
      "no-changelog": { type: "boolean", default: false },
      json: { type: "boolean", default: false },
    },
  });
  const root = path.resolve(values.root!);
  const result = await checkSchemas(root, values.base!);
  const count = (level: Level) => result.changes.filter((change) => change.level === level).length;
  if (values.json) {
    for (const change of result.changes) console.log(JSON.stringify(change));
  } else {
    console.log(`schema:check against ${values.base} (${result.base.slice(0, 12)}): ${result.files.length} files`);
    for (const level of ["breaking", "dangerous", "safe"] as const) {
      console.log(`${level}: ${count(level)}`);
      for (const change of result.changes.filter((c) => c.level === level)) console.log(`  ${change.file}: ${change.message}`);
    }
  }
  if (!values["no-changelog"] && recordChanges(path.join(root, CHANGELOG_FILE), result, new Date().toISOString().slice(0, 10))) {
    console.error(`schema:check: recorded the changes in ${CHANGELOG_FILE}`);
  }
  if (count("breaking") === 0) return 0;
  const allowed = allowedBy(root, values["allow-breaking"]!);
  if (allowed) {
    console.error(`schema:check: ${count("breaking")} breaking change(s), allowed by ${allowed}`);
    return 0;
  }
  console.error(`schema:check: ${count("breaking")} breaking change(s); allow them with ${ALLOW_MARKER} in the commit message or a ${ALLOW_FILE} file`);
  return 1;
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(2);
  },
);
