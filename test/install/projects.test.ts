/**
 * The two vitest projects (vitest.config.ts): `npm test` runs both; every test file belongs to exactly one; a `fast`
 * file starts no platform part (chain, database, child process), so the fast project stays fast and self-contained;
 * the platform project gives hooks the time a platform start needs; and a test without assertions fails.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import config, { FAST_TEST_FILES, PLATFORM_HOOK_TIMEOUT_MS } from "../../vitest.config.js";
import { PLATFORM_START_TIMEOUT_MS } from "../support/timeouts.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/** Every `*.test.ts` under test/, as a path relative to the root. */
function testFiles(dir = "test"): string[] {
  return readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const relative = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return testFiles(relative);
    return entry.name.endsWith(".test.ts") ? [relative] : [];
  });
}

/** The patterns the config uses: a file, or `dir/*.test.ts`. */
function matches(file: string, pattern: string): boolean {
  if (!pattern.includes("*")) return file === pattern;
  const [dir, suffix] = pattern.split("/*");
  return path.posix.dirname(file) === dir && file.endsWith(suffix!);
}

const isFast = (file: string) => FAST_TEST_FILES.some((pattern) => matches(file, pattern));

/** What starts a platform part: these names never appear in a fast file. */
const PLATFORM_PARTS = [
  "startTestPlatform",
  "startIsolatedPlatform",
  "startVerifyPlatform",
  "startRatingsPlatform",
  "startPlatform",
  "startRole",
  "startCommand",
  "startSeededChain",
  "openPlatformChain",
  "openDatabase",
  "openTestDatabase",
  "withTestDatabase",
  "databaseTargets",
  "createPostgresDatabase",
  "runCli",
  "spawn(",
  "execFile(",
];

describe("vitest projects", () => {
  const projects = config.test!.projects as Array<{ test: { name: string; include: string[]; exclude?: string[]; hookTimeout?: number } }>;

  it("npm test runs vitest, which runs both projects", () => {
    const scripts = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")).scripts;
    expect(scripts.test).toBe("vitest run");
    expect(projects.map((project) => project.test.name)).toEqual(["fast", "platform"]);
  });

  it("every test file is in exactly one project: fast by name, platform otherwise", () => {
    const [fast, platform] = projects;
    expect(fast!.test.include).toBe(FAST_TEST_FILES);
    expect(platform!.test.include).toEqual(["test/**/*.test.ts"]);
    expect(platform!.test.exclude).toBe(FAST_TEST_FILES);
    const files = testFiles();
    expect(files.length).toBeGreaterThan(60);
    // Every fast pattern names something that exists (a renamed file cannot silently move to the platform project).
    for (const pattern of FAST_TEST_FILES) expect(files.some((file) => matches(file, pattern)), pattern).toBe(true);
  });

  it("no fast file starts a platform part", () => {
    const offenders = testFiles()
      .filter((file) => isFast(file) && file !== "test/install/projects.test.ts") // this file names them
      .flatMap((file) => {
        const text = readFileSync(path.join(root, file), "utf8");
        return PLATFORM_PARTS.filter((part) => text.includes(part)).map((part) => `${file}: ${part}`);
      });
    expect(offenders).toEqual([]);
  });

  it("the platform project's hooks get the platform start budget", () => {
    expect(PLATFORM_HOOK_TIMEOUT_MS).toBe(PLATFORM_START_TIMEOUT_MS);
    expect(projects[1]!.test.hookTimeout).toBe(PLATFORM_START_TIMEOUT_MS);
  });

  it("a test without assertions fails (expect.requireAssertions)", () => {
    expect(config.test!.expect).toEqual({ requireAssertions: true });
  });
});
