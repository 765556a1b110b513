/**
 * Runs platform roles as separate OS processes (`node --import tsx gateway/main.ts <role>`), as the split topology
 * runs them. Node itself, not the `tsx` launcher: the launcher answers a SIGTERM by exiting before the server it
 * started has shut down, which left that server's anvil running (the heartbeat benchmark leaked one per platform).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { randomInt } from "node:crypto";
import net from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/**
 * A port for a child process to listen on. The port is probed free and then released before the child binds it, so
 * something else could take it in between. An ephemeral port (`listen(0)`) is the worst choice for that: the kernel
 * hands the same range out as the source port of every outgoing connection and to every other `listen(0)` on the
 * machine (parallel test files' databases, chains and servers), so a child could fail with `EADDRINUSE`. Ports are
 * drawn at random from below the kernel's ephemeral range instead, where only an explicit bind can land, and never
 * twice in one process.
 */
export function freePort(): Promise<number> {
  return freePortIn(...PORT_RANGE);
}

/** A port in [low, high) that binds now and that this process has not handed out before. */
export async function freePortIn(low: number, high: number): Promise<number> {
  for (let attempt = 0; attempt < 500; attempt += 1) {
    const port = low + randomInt(high - low);
    if (handedOut.has(port)) continue;
    handedOut.add(port);
    if (await bindable(port)) return port;
  }
  throw new Error(`freePort: no free port found in ${low}-${high - 1}`);
}

/** [low, high): below the kernel's ephemeral range (Linux: /proc/sys/net/ipv4/ip_local_port_range, 32768 by default). */
export const PORT_RANGE: readonly [number, number] = (() => {
  let ephemeralLow = 32_768;
  try {
    ephemeralLow = Number(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]);
  } catch {
    // Not Linux: the default range's start.
  }
  return ephemeralLow > 12_000 ? [10_000, ephemeralLow] : [49_152, 65_536];
})();

const handedOut = new Set<number>();

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}

/**
 * The process and all its descendants (Linux /proc; elsewhere just the process). `npm start` runs the server as
 * npm's child: killing npm alone on a start timeout left that server (and its anvil) running for the rest of the suite.
 */
export function processTree(pid: number): number[] {
  const children = new Map<number, number[]>();
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return [pid];
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // Field 4 of /proc/<pid>/stat is the parent PID; the command name (field 2) may hold spaces, so split after ")".
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
    } catch {
      // The process ended while we read.
    }
  }
  const tree: number[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    const next = queue.shift()!;
    tree.push(next);
    queue.push(...(children.get(next) ?? []));
  }
  return tree;
}

/** SIGKILLs a process and every descendant (children first read, then all killed, so none is re-parented unseen). */
export function killTree(pid: number): void {
  for (const member of processTree(pid)) {
    try {
      process.kill(member, "SIGKILL");
    } catch {
      // Already gone.
    }
  }
}

/**
 * Role `all`'s data directory and ports: HTTP, markets, GraphQL, anvil, MCR 2.0, altchain, then the demo provider's
 * (off when absent). Every listener on a port of its own: the defaults (MCR2 8200, altchain 8899) may be held by
 * another platform on this machine (a loaded run failed so with EADDRINUSE on 8899); the admin listener is on 0.
 */
export function roleAllEnv(dataDir: string, [http, markets, graphql, anvil, mcr2, altchain, provider]: number[]): Record<string, string> {
  return {
    DATA_DIR: dataDir,
    HTTP_PORT: String(http),
    MARKETS_PORT: String(markets),
    GRAPHQL_PORT: String(graphql),
    ANVIL_PORT: String(anvil),
    MCR2_PORT: String(mcr2),
    ALTCHAIN_RPC_PORT: String(altchain),
    DEMO_PROVIDER_PORT: provider === undefined ? "0" : String(provider),
  };
}

export interface RoleProcess {
  child: ChildProcess;
  output(): string;
  stop(): Promise<void>;
}

/** Starts a role and resolves once it logs `ready`; rejects with its output if it exits first. */
export function startRole(
  args: string[],
  env: Record<string, string>,
  timeoutMs = 60_000,
  command: string[] = [path.join(root, "gateway", "main.ts"), ...args],
): Promise<RoleProcess> {
  return startCommand(process.execPath, ["--import", "tsx", ...command], env, timeoutMs);
}

/** Starts any command of the project (`npm start`, `node --import tsx ...`) and resolves once it logs `ready`. */
export function startCommand(executable: string, args: string[], env: Record<string, string>, timeoutMs = 60_000, cwd = root): Promise<RoleProcess> {
  const child = spawn(executable, args, {
    cwd,
    // The admin (metrics) listener on a free port: several roles run side by side.
    env: { ...process.env, LOG_LEVEL: "info", ADMIN_PORT: "0", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const handle: RoleProcess = {
    child,
    output: () => output,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      if (child.pid !== undefined) killTree(child.pid);
      else child.kill("SIGKILL");
      reject(new Error(`${args.join(" ")} not ready in time:\n${output}`));
    }, timeoutMs);
    // Lines are matched as they complete: testing the whole output on every chunk was quadratic, and with one log
    // line per request it made the reading process (a benchmark's load generator) the bottleneck.
    let ready = false;
    const reader = () => {
      let partial = "";
      return (chunk: Buffer) => {
        const text = chunk.toString();
        output += text;
        if (ready) {
          // Once serving, a platform that logs every request writes megabytes: keep only the tail for diagnostics.
          if (output.length > 1 << 20) output = output.slice(-(1 << 16));
          return;
        }
        const lines = (partial + text).split("\n");
        partial = lines.pop() ?? "";
        if (lines.some((line) => line.replace(/\r$/, "") === "ready")) {
          ready = true;
          clearTimeout(timer);
          resolve(handle);
        }
      };
    };
    child.stdout!.on("data", reader());
    child.stderr!.on("data", reader());
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`${args.join(" ")} exited with ${code}:\n${output}`));
    });
  });
}
