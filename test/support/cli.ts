/**
 * The operator CLI (`gateway/cli/main.ts`) as a child process, the way an operator runs it (`npm run cli -- ...`),
 * minus npm, and from the TypeScript sources with tsx rather than the compiled `dist/` (so a test runs what was just
 * edited; test/e2e/compiled-build.test.ts covers the compiled CLI).
 */
import { spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { TestPlatform } from "./platform.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the CLI with `env` on top of this process's environment. */
export function runCliWith(args: string[], env: Record<string, string>): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", path.join(root, "gateway", "cli", "main.ts"), ...args], {
      cwd: root,
      // A generous RPC deadline: a loaded machine must not turn a slow answer into a failed CLI run.
      env: { ...process.env, LOG_LEVEL: "silent", CHAIN_TIMEOUT_MS: "30000", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** Runs the CLI against a test platform (its data directory and gateway). */
export function runCli(p: TestPlatform, args: string[], env: Record<string, string> = {}): Promise<CliRun> {
  return runCliWith(args, { DATA_DIR: p.dataDir, GRAPHQL_URL: p.graphql, ...env });
}
