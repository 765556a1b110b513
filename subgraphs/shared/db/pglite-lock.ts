/**
 * PGlite has no inter-process locking: two processes opening one data directory both succeed, each with its own
 * buffers, and corrupt it. A pid lock file beside the data directory (`<dir>.lock`, outside it so initdb sees an
empty directory) makes the second opener fail instead.
 */
import { open, readFile, rm } from "node:fs/promises";
import path from "node:path";

export class DataDirInUseError extends Error {
  constructor(dir: string, pid: number) {
    super(`${dir} is in use by process ${pid}; embedded PGlite serves one process (use DATABASE_URL to share)`);
    this.name = "DataDirInUseError";
  }
}

/** Lock files this process holds, so a stale file that happens to carry our own (reused) pid is recognised. */
const heldHere = new Set<string>();

/** Takes the lock on `dir` (whose parent must exist) and returns its release function. */
export async function lockDataDir(dir: string): Promise<() => Promise<void>> {
  const lockPath = `${path.resolve(dir)}.lock`;
  // Second attempt only after removing a stale lock left by a process that died.
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const file = await open(lockPath, "wx");
      await file.writeFile(String(process.pid));
      await file.close();
      heldHere.add(lockPath);
      return async () => {
        heldHere.delete(lockPath);
        await rm(lockPath, { force: true });
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const holder = Number.parseInt(await readFile(lockPath, "utf8").catch(() => ""), 10);
      const heldByUs = holder === process.pid && heldHere.has(lockPath);
      if (heldByUs || (holder !== process.pid && isRunning(holder))) throw new DataDirInUseError(dir, holder);
      await rm(lockPath, { force: true });
    }
  }
  throw new Error(`could not lock ${dir}`);
}

function isRunning(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0); // signal 0: existence check only
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"; // exists, owned by another user
  }
}
