/**
 * `.ci/run` stops, before installing or testing anything, when Redis cannot be started or does not answer PING, and
 * otherwise exports REDIS_TESTS_REQUIRED=1, so the Redis rate-limit suite can never be skipped silently in CI.
 *
 * The script runs for real (bash, in this checkout); the programs it calls that are not ours are put first on its
 * PATH as small scripts: PostgreSQL reported ready, redis-cli and redis-server behaving as each case needs, and `npm`
 * recording that it was reached (and with which REDIS_TESTS_REQUIRED) instead of installing anything.
 */
import { spawn } from "node:child_process";
import { chmod, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

interface Programs {
  /** Body of the fake `redis-cli` (its arguments end with `ping`). */
  redisCli: string;
  /** Body of the fake `redis-server`. */
  redisServer: string;
}

/** Runs `.ci/run` with the fake programs first on PATH: exit code, output, and what the fake npm recorded. */
async function runCi(programs: Programs): Promise<{ code: number | null; stdout: string; stderr: string; npm: string | null }> {
  const bin = await mkdtemp(path.join(os.tmpdir(), "ci-run-bin-"));
  dirs.push(bin);
  const marker = path.join(bin, "npm-reached");
  const scripts: Record<string, string> = {
    "pg_isready": "exit 0",
    "redis-cli": programs.redisCli,
    "redis-server": programs.redisServer,
    // Reached only once the services are up: records the variable the test suites would see, installs nothing.
    npm: `printf '%s' "\${REDIS_TESTS_REQUIRED:-unset}" > '${marker}'\nexit 3`,
    "apt-get": "exit 1",
  };
  for (const [name, body] of Object.entries(scripts)) {
    const file = path.join(bin, name);
    await writeFile(file, `#!/bin/sh\n${body}\n`);
    await chmod(file, 0o755);
  }
  const env: NodeJS.ProcessEnv = { ...process.env, PATH: `${bin}:${process.env.PATH}`, CI_REDIS_WAIT_SECONDS: "2" };
  delete env.REDIS_TESTS_REQUIRED;
  const run = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn("bash", [path.join(root, ".ci", "run")], { cwd: root, env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
  return { ...run, npm: await readFile(marker, "utf8").catch(() => null) };
}

describe(".ci/run and Redis", () => {
  it("redis-server cannot be started: exits 1 naming Redis, before npm runs", async () => {
    const run = await runCi({ redisCli: "echo 'Could not connect to Redis at 127.0.0.1:6379: Connection refused' >&2\nexit 1", redisServer: "exit 1" });
    expect(run.code).toBe(1);
    expect(run.stdout).toContain("ci: starting Redis");
    expect(run.stderr).toContain("ci: redis-server could not be started; the Redis rate-limit suite needs it");
    expect(run.npm).toBeNull();
  });

  it("redis-server starts but nothing answers PING: exits 1 after the wait, before npm runs", async () => {
    const run = await runCi({ redisCli: "exit 1", redisServer: "exit 0" });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("ci: Redis does not answer PING on 127.0.0.1:6379 after 2 s; the Redis rate-limit suite needs it");
    expect(run.npm).toBeNull();
  });

  it("a server that answers, but not PONG, is not taken for Redis", async () => {
    const run = await runCi({ redisCli: "echo 'NOAUTH Authentication required.'\nexit 0", redisServer: "exit 0" });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("ci: Redis does not answer PING");
    expect(run.npm).toBeNull();
  });

  it("Redis answers PONG: the run goes on, with REDIS_TESTS_REQUIRED=1 for the suites", async () => {
    const run = await runCi({ redisCli: "echo PONG", redisServer: "echo 'redis-server must not be started' >&2\nexit 1" });
    expect(run.npm).toBe("1");
    expect(run.stdout).not.toContain("ci: starting Redis");
    expect(run.stderr).not.toContain("redis-server must not be started");
    // The fake npm's own failure (exit 3) ends the run: nothing was installed.
    expect(run.code).toBe(3);
  });
});
