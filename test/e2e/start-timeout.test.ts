/**
 * The harness's start timeout kills the whole process tree: `npm start` runs the server as npm's child, and killing npm
 * alone would leave that server running for the rest of the suite.
 */
import { describe, expect, it } from "vitest";
import { processTree, startCommand } from "../support/processes.js";
import { waitUntil } from "../support/wait.js";

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe("startCommand timeout", () => {
  it("kills the started command and its grandchildren when `ready` never comes", async () => {
    // A shell (standing in for npm) starts a node grandchild that prints its PID and never logs `ready`.
    const script = `${JSON.stringify(process.execPath)} -e 'console.log("pid", process.pid); setInterval(() => {}, 1000)' & wait`;
    const started = startCommand("/bin/sh", ["-c", script], {}, 8_000);
    const failure = await started.then(
      () => new Error("resolved although ready was never logged"),
      (error: Error) => error,
    );
    expect(failure.message).toMatch(/not ready in time/);
    const match = /pid (\d+)/.exec(failure.message);
    expect(match).not.toBeNull();
    const grandchild = Number(match![1]);
    expect(grandchild).toBeGreaterThan(0);
    await waitUntil(() => !alive(grandchild));
    expect(alive(grandchild)).toBe(false);
  });

  it("finds a process's descendants", async () => {
    const script = `${JSON.stringify(process.execPath)} -e 'console.log("pid", process.pid); console.log("ready"); setInterval(() => {}, 1000)' & wait`;
    const role = await startCommand("/bin/sh", ["-c", script], {}, 10_000);
    try {
      const grandchild = Number(/pid (\d+)/.exec(role.output())![1]);
      const tree = processTree(role.child.pid!);
      expect(tree[0]).toBe(role.child.pid);
      expect(tree).toContain(grandchild);
    } finally {
      for (const pid of processTree(role.child.pid!).reverse()) process.kill(pid, "SIGKILL");
    }
  });
});
