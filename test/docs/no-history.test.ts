/**
 * Code, tests, configuration and documents say what the project does and why, never which issue or branch brought a
 * change: no tracked file names an issue by number ("issue 10", "issues 8 and 9", "issue-10c", "issue #7") or an issue
 * branch ("branch issue-perf"). An upstream bug is cited by its URL (`.../issues/1768`), which these patterns leave
 * alone, as they do the word itself ("an issue", "issued", "issuer", "issuance"). Not scanned: package-lock.json and
 * the OpenAPI documents (generated), prisma/migrations (applied migrations never change), and this file.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const THIS_FILE = "test/docs/no-history.test.ts";

/** Tracked files this check does not read. */
const NOT_SCANNED = [/^package-lock\.json$/, /^docs\/openapi\/[^/]+\.json$/, /^prisma\/migrations\//];

/** An issue named by number, or a branch named after an issue. */
const HISTORY = [/\bissues?[- ]?#?\d+/i, /\bissue-\d+[a-z]?\b/i, /\bbranch(?:es)? ['"]?issue/i];

const namesHistory = (line: string) => HISTORY.some((pattern) => pattern.test(line));

/** Every tracked text file to scan, relative to the root. */
function trackedFiles(): string[] {
  return execFileSync("git", ["ls-files", "-z"], { cwd: root, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 })
    .split("\0")
    .filter((file) => file !== "" && file !== THIS_FILE && !NOT_SCANNED.some((pattern) => pattern.test(file)));
}

describe("no project history in the tree", () => {
  it.each([
    "Stream marketplace (issue 10): formats",
    "seller routes of issue-10s",
    "the CLI's dataset layout (issue-10c)",
    "Issue 11's read path",
    "issue 8 item 7",
    "after issues 8 and 9",
    "fixed in issue #12",
    "measured on branch issue-perf",
    "on the branch 'issue-perf'",
  ])("flags %j", (line) => {
    expect(namesHistory(line)).toBe(true);
  });

  it.each([
    "Issues single-use chip challenges",
    "the challenge was issued 3 s ago",
    "issuer, audience, expiry",
    "issuance caps",
    "a known issue in pkijs",
    "type-graphql's cast (https://github.com/MichalLytek/type-graphql/issues/1768)",
    "callers branch on `code`",
    "main's last commit on a branch",
    "git reference no-such-branch names no commit",
  ])("leaves %j alone", (line) => {
    expect(namesHistory(line)).toBe(false);
  });

  it("no tracked file names an issue number or an issue branch", () => {
    const files = trackedFiles();
    expect(files.length).toBeGreaterThan(100);
    const hits = files.flatMap((file) => {
      const full = path.join(root, file);
      if (!existsSync(full)) return []; // deleted in the working tree, not yet committed
      const bytes = readFileSync(full);
      if (bytes.includes(0)) return []; // binary
      return bytes
        .toString("utf8")
        .split("\n")
        .flatMap((line, index) => (namesHistory(line) ? [`${file}:${index + 1}: ${line.trim().slice(0, 160)}`] : []));
    });
    expect(hits, `${hits.length} lines name an issue or an issue branch`).toEqual([]);
  });
});
