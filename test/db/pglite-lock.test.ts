/**
 * The PGlite data directory is locked atomically by the OS (subgraphs/shared/db/pglite-lock.ts): of several processes
 * started together exactly one gets it, the others fail with DataDirInUseError naming the holder; a holder killed
 * with SIGKILL leaves nothing stale behind, so the next start takes the lock at once. Real processes, released
 * together through a barrier on their stdin.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const STARTERS = 6;
const TRIALS = 3;

/** A process that, once told "go", tries the lock and reports; a holder keeps it until told "release". */
const CONTENDER = `
import { lockDataDir } from "./subgraphs/shared/db/pglite-lock.ts";
const lines = [];
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => lines.push(...chunk.split("\\n")));
const next = async (word) => { while (!lines.includes(word)) await new Promise((r) => setTimeout(r, 5)); };
console.log("ready");
await next("go");
try {
  const release = await lockDataDir(process.argv[1]);
  console.log("locked");
  await next("release");
  await release();
} catch (error) {
  console.log(error.name + " " + error.message);
}
process.exit(0);
`;

interface Contender {
  child: ChildProcess;
  output: string;
  said(word: string): Promise<void>;
}

/** Every process started, so a failed assertion cannot leave a holder running after the file. */
const started: ChildProcess[] = [];

function contender(dir: string): Contender {
  const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", CONTENDER, dir], {
    cwd: root,
    stdio: ["pipe", "pipe", "inherit"],
  });
  const handle: Contender = {
    child,
    output: "",
    said: (word) =>
      new Promise((resolve, reject) => {
        const check = () => {
          if (handle.output.includes(word)) resolve();
          else if (child.exitCode !== null) reject(new Error(`exited without saying ${word}: ${handle.output}`));
          else setTimeout(check, 10);
        };
        check();
      }),
  };
  started.push(child);
  child.stdout!.on("data", (chunk: Buffer) => (handle.output += chunk.toString()));
  child.stdin!.on("error", () => {}); // a contender that lost has exited already
  return handle;
}

const exited = (child: ChildProcess) =>
  child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((resolve) => child.once("exit", resolve));

let base: string;
beforeAll(async () => {
  base = await mkdtemp(path.join(tmpdir(), "pglite-lock-"));
});
afterAll(async () => {
  for (const child of started) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  await Promise.all(started.map(exited));
  await rm(base, { recursive: true, force: true });
});

describe("PGlite data-directory lock", () => {
  it(`of ${STARTERS} processes released together, exactly one holds the lock (${TRIALS} trials)`, async () => {
    for (let trial = 0; trial < TRIALS; trial++) {
      const dir = path.join(base, `trial-${trial}`);
      await mkdir(dir);
      // What the old pid-file lock left after a crash: a lock file of a process long gone. It plays no part now.
      await writeFile(`${dir}.lock`, "999999");
      const contenders = Array.from({ length: STARTERS }, () => contender(dir));
      await Promise.all(contenders.map((c) => c.said("ready")));
      for (const c of contenders) c.child.stdin!.write("go\n");
      await Promise.all(contenders.map((c) => Promise.any([c.said("locked"), c.said("DataDirInUseError")])));
      const holders = contenders.filter((c) => c.output.includes("locked"));
      expect(holders).toHaveLength(1);
      const holderPid = holders[0]!.child.pid;
      for (const c of contenders.filter((other) => other !== holders[0])) {
        expect(c.output).toContain(`DataDirInUseError ${dir} is in use by process ${holderPid}`);
      }
      holders[0]!.child.stdin!.write("release\n");
      await Promise.all(contenders.map((c) => exited(c.child)));
    }
  });

  it("a holder killed with SIGKILL leaves no stale lock: the next process takes it at once", async () => {
    const dir = path.join(base, "killed");
    await mkdir(dir);
    const first = contender(dir);
    await first.said("ready");
    first.child.stdin!.write("go\n");
    await first.said("locked");
    const blocked = contender(dir);
    await blocked.said("ready");
    blocked.child.stdin!.write("go\n");
    await blocked.said("DataDirInUseError");
    expect(blocked.output).toContain(`DataDirInUseError ${dir} is in use by process ${first.child.pid}`);

    first.child.kill("SIGKILL");
    await exited(first.child);
    expect(first.child.signalCode).toBe("SIGKILL");
    expect(first.output).not.toContain("release"); // it never let go: only its death freed the lock
    const next = contender(dir);
    await next.said("ready");
    next.child.stdin!.write("go\n");
    await next.said("locked");
    expect(next.output).not.toContain("DataDirInUseError");
    next.child.stdin!.write("release\n");
    await exited(next.child);
    expect(next.child.exitCode).toBe(0);
  });
});
