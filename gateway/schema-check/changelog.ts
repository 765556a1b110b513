/**
 * docs/schema-changelog.md, kept by `npm run schema:check`: one entry per distinct set of changes against a base
 * commit, newest first. An entry is keyed by a fingerprint of its changes, so running the check again adds nothing.
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import type { CheckResult, Level } from "./diff.js";

export const CHANGELOG_FILE = "docs/schema-changelog.md";

const HEADER = `# Schema changelog

Written by \`npm run schema:check\` (gateway/schema-check/): the subgraph SDL and supergraph changes of the working
tree against a base commit, as @graphql-inspector/core classifies them. Newest first.
`;

const TITLES: Record<Level, string> = { breaking: "Breaking", dangerous: "Dangerous", safe: "Safe" };

export function fingerprint(result: CheckResult): string {
  const text = result.changes.map((change) => `${change.file}|${change.level}|${change.type}|${change.message}`).join("\n");
  return createHash("sha256").update(text).digest("hex").slice(0, 12);
}

export function renderEntry(result: CheckResult, date: string): string {
  const lines = [`## ${date}: against ${result.base.slice(0, 12)} <!-- schema-check ${fingerprint(result)} -->`, ""];
  for (const level of ["breaking", "dangerous", "safe"] as const) {
    const changes = result.changes.filter((change) => change.level === level);
    if (changes.length === 0) continue;
    lines.push(`### ${TITLES[level]}`, "");
    for (const change of changes) lines.push(`- \`${change.file}\`: ${change.message}`);
    lines.push("");
  }
  return lines.join("\n");
}

/** Adds the entry unless the changelog already has one for the same changes; true when the file was written. */
export function recordChanges(file: string, result: CheckResult, date: string): boolean {
  if (result.changes.length === 0) return false;
  const current = existsSync(file) ? readFileSync(file, "utf8") : HEADER;
  if (current.includes(`<!-- schema-check ${fingerprint(result)} -->`)) return false;
  const body = current.startsWith(HEADER) ? current.slice(HEADER.length) : `\n${current}`;
  writeFileSync(file, `${HEADER}\n${renderEntry(result, date)}${body.replace(/^\n/, "\n")}`);
  return true;
}
