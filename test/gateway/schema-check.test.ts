/**
 * `npm run schema:check` in a throw-away git repository holding this project's subgraph SDL and supergraph: a safe
 * change passes and is recorded once in docs/schema-changelog.md, a breaking change in a subgraph or the supergraph
 * fails the command unless the allow file or the commit-message marker allows it.
 */
import { execFile, execFileSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

const run = promisify(execFile);
const project = process.cwd();
const FILES = ["subgraphs/verify/schema.graphql", "subgraphs/ratings/schema.graphql", "subgraphs/markets/schema.graphql", "gateway/supergraph.graphql"];
const VERIFY = "subgraphs/verify/schema.graphql";
const SUPERGRAPH = "gateway/supergraph.graphql";
const MACHINE_FIELD = /  """\n  A machine by its decimal ID, for reading across subgraphs[^\n]*\n  """\n  machine\(machineId: String!\): Machine\n/;

let repo: string;
const git = (...args: string[]) => execFileSync("git", args, { cwd: repo, encoding: "utf8" });
const edit = (file: string, from: string | RegExp, to: string) => {
  const target = path.join(repo, file);
  const text = readFileSync(target, "utf8");
  if (typeof from === "string") expect(text).toContain(from);
  else expect(text).toMatch(from);
  writeFileSync(target, text.replace(from, to));
};

async function schemaCheck(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, ["--import", "tsx", path.join(project, "gateway/schema-check/main.ts"), "--root", repo, ...args], { cwd: project });
    return { code: 0, stdout, stderr };
  } catch (error: any) {
    return { code: error.code, stdout: error.stdout, stderr: error.stderr };
  }
}

beforeEach(() => {
  repo = mkdtempSync(path.join(os.tmpdir(), "schema-check-"));
  for (const file of FILES) {
    mkdirSync(path.dirname(path.join(repo, file)), { recursive: true });
    copyFileSync(path.join(project, file), path.join(repo, file));
  }
  mkdirSync(path.join(repo, "docs"));
  git("init", "-q", "-b", "main");
  git("-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-q", "--allow-empty", "-m", "base");
  git("add", "-A");
  git("-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-q", "-m", "schemas");
});
afterEach(() => rmSync(repo, { recursive: true, force: true }));

describe("schema:check", () => {
  it("reports nothing and writes no changelog when the schemas equal main's", async () => {
    const result = await schemaCheck();
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/breaking: 0\ndangerous: 0\nsafe: 0/);
    expect(existsSync(path.join(repo, "docs/schema-changelog.md"))).toBe(false);
  });

  it("passes a safe change (a new optional field) and records it in the changelog once", async () => {
    edit(VERIFY, "type Query {\n", 'type Query {\n  """A new read."""\n  verifyVersion: String\n\n');
    const first = await schemaCheck();
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/breaking: 0/);
    expect(first.stdout).toContain("safe: 2");
    expect(first.stdout).toContain("Field 'verifyVersion' was added to object type 'Query'");
    const changelog = readFileSync(path.join(repo, "docs/schema-changelog.md"), "utf8");
    expect(changelog).toContain("### Safe");
    expect(changelog).toContain("`subgraphs/verify/schema.graphql`: Field 'verifyVersion' was added");
    await schemaCheck();
    expect(readFileSync(path.join(repo, "docs/schema-changelog.md"), "utf8")).toBe(changelog);
  });

  it("fails on a removed subgraph field, prints it as breaking, and records it", async () => {
    edit(VERIFY, MACHINE_FIELD, "");
    const result = await schemaCheck("--json");
    expect(result.code).toBe(1);
    const changes = result.stdout.trim().split("\n").map((line) => JSON.parse(line));
    expect(changes).toContainEqual(expect.objectContaining({ file: VERIFY, level: "breaking", type: "FIELD_REMOVED", path: "Query.machine" }));
    expect(result.stderr).toContain("breaking change(s); allow them with [schema-breaking-ok]");
    expect(readFileSync(path.join(repo, "docs/schema-changelog.md"), "utf8")).toContain("### Breaking");
  });

  it("checks the supergraph too", async () => {
    edit(SUPERGRAPH, "  machineVerification(machineId: String!): MachineVerificationRecord!", "  machineVerification(machineId: String!): MachineVerificationRecord");
    const result = await schemaCheck("--no-changelog");
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/breaking: 1\n  gateway\/supergraph.graphql: Field 'Query.machineVerification' changed type/);
    expect(existsSync(path.join(repo, "docs/schema-changelog.md"))).toBe(false);
  });

  it("lets a breaking change through with the allow file", async () => {
    edit(VERIFY, MACHINE_FIELD, "");
    writeFileSync(path.join(repo, ".schema-breaking-allowed"), "machine moved to the markets subgraph\n");
    const result = await schemaCheck("--no-changelog");
    expect(result.code).toBe(0);
    expect(result.stderr).toContain("allowed by .schema-breaking-allowed");
  });

  it("lets a breaking change through with the commit-message marker, against an explicit base", async () => {
    const base = git("rev-parse", "HEAD").trim();
    edit(VERIFY, MACHINE_FIELD, "");
    git("-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-q", "-am", "Drop Query.machine [schema-breaking-ok]");
    const onMain = await schemaCheck("--no-changelog");
    // main now has the change: nothing differs from it.
    expect(onMain.stdout).toMatch(/breaking: 0/);
    const result = await schemaCheck("--no-changelog", "--base", base);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/breaking: 1/);
    expect(result.stderr).toContain("allowed by commit message [schema-breaking-ok]");
  });

  it("refuses a base that names no commit", async () => {
    const result = await schemaCheck("--base", "no-such-branch");
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("git reference no-such-branch names no commit");
  });
});
