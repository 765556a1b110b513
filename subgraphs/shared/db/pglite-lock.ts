/**
 * PGlite has no inter-process locking: two processes opening one data directory both succeed, each with its own
 * buffers, and corrupt it. So the directory is locked with an OS-level lock: a listening Unix socket in Linux's
 * abstract namespace whose name is derived from the directory's real path. Binding it is atomic (a second binder
 * gets EADDRINUSE, whether in another process or this one), and the kernel releases it when the process exits or
 * is killed, so there is no stale lock to detect or take over, and no window in which two processes both hold it.
 * The holder answers a connection with its pid, so the error can name it.
 *
 * (A pid file created with O_EXCL is atomic, but taking over a stale one is not: two starters can both find it stale,
 * and one then removes the lock the other has just created.)
 */
import { createHash } from "node:crypto";
import { realpath } from "node:fs/promises";
import net from "node:net";
import path from "node:path";

export class DataDirInUseError extends Error {
  constructor(dir: string, pid: number | undefined) {
    super(
      `${dir} is in use by ${pid ? `process ${pid}` : "another process"}; embedded PGlite serves one process (use DATABASE_URL to share)`,
    );
    this.name = "DataDirInUseError";
  }
}

/** The abstract socket name of a directory (a leading NUL byte puts it in the abstract namespace). */
async function lockName(dir: string): Promise<string> {
  const real = await realpath(dir);
  return `\0machine-economy-pglite-${createHash("sha256").update(real).digest("hex").slice(0, 32)}`;
}

/** Takes the lock on `dir` (which must exist) and returns its release function. */
export async function lockDataDir(dir: string): Promise<() => Promise<void>> {
  if (process.platform !== "linux") {
    throw new Error("embedded PGlite needs Linux (its data-directory lock is an abstract Unix socket); set DATABASE_URL");
  }
  const name = await lockName(path.resolve(dir));
  const server = net.createServer((socket) => socket.end(String(process.pid)));
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(name, () => resolve());
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EADDRINUSE") throw error;
    throw new DataDirInUseError(dir, await holderPid(name));
  }
  server.unref(); // the lock must not keep the process alive
  return () => new Promise<void>((resolve) => server.close(() => resolve()));
}

/**
 * Asks the holder for its pid; undefined if it does not answer within 5 s. A holder that is starting PGlite (compiling
 * its WASM) or runs on a loaded machine can take more than a second to answer; the wait only delays an error. A
 * connection refused or closed without an answer is tried again (up to {@link PID_ATTEMPTS} times, 50 ms apart): the
 * holder binds the name and then listens, two system calls, so a contender that finds the name taken between them is
 * refused; on a loaded machine the holder can be descheduled there for milliseconds.
 */
async function holderPid(name: string): Promise<number | undefined> {
  const deadline = Date.now() + 5000;
  for (let attempt = 1; ; attempt++) {
    const pid = await askPid(name, deadline - Date.now());
    if (pid !== undefined || attempt === PID_ATTEMPTS || Date.now() + 50 >= deadline) return pid;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const PID_ATTEMPTS = 5;

function askPid(name: string, timeoutMs: number): Promise<number | undefined> {
  return new Promise((resolve) => {
    let answer = "";
    const socket = net.connect(name);
    socket.setTimeout(timeoutMs, () => socket.destroy());
    socket.on("data", (chunk) => (answer += chunk.toString()));
    socket.on("error", () => resolve(undefined));
    socket.on("close", () => resolve(Number.parseInt(answer, 10) || undefined));
  });
}
