/**
 * The embedded development chain: an anvil node from the `@foundry-rs/anvil-<platform>-<arch>` npm package.
 *
 * State lives in `<dataDir>/chain/anvil-state.json` (`--state`): loaded on start, dumped every few seconds
 * (`--state-interval`) and on SIGTERM, so a killed process loses at most the last interval. anvil's output goes to
 * `<dataDir>/chain/anvil.log`.
 *
 * Its pid is kept in `<dataDir>/chain/anvil.pid` while it runs. A platform killed with SIGKILL cannot stop its node,
 * which then keeps the port and the state file; the next start finds that node by the pid file (checking that the
 * pid is still an anvil serving this state file, not a reused pid) and stops it, so its state is dumped and loaded.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createWriteStream, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

export interface DevChainOptions {
  dataDir: string;
  /** 0 lets anvil pick a free port (tests). */
  port: number;
  chainId?: number;
  /** Seconds between state dumps. */
  stateIntervalSeconds?: number;
  /** How long to wait for the RPC to answer. */
  startTimeoutMs?: number;
  /** Progress lines (a leftover node being stopped). */
  log?: (line: string) => void;
}

export interface DevChain {
  rpcUrl: string;
  stop(): Promise<void>;
}

export class DevChainError extends Error {}

const ARCH_NAMES: Partial<Record<NodeJS.Architecture, string>> = { x64: "amd64", arm64: "arm64" };

/** Path of the anvil binary shipped in the platform package (no postinstall script needed). */
export function resolveAnvilBinary(): string {
  const arch = ARCH_NAMES[process.arch];
  const packageName = `@foundry-rs/anvil-${process.platform}-${arch ?? process.arch}`;
  const binary = process.platform === "win32" ? "anvil.exe" : "anvil";
  try {
    const packageJson = createRequire(import.meta.url).resolve(`${packageName}/package.json`);
    const binaryPath = path.join(path.dirname(packageJson), "bin", binary);
    if (existsSync(binaryPath)) return binaryPath;
  } catch {
    // Reported below with the package name.
  }
  throw new DevChainError(
    `anvil binary not found: install the npm package ${packageName} (package.json pins the linux-x64 build, the ` +
      `only one our registry serves) or set CHAIN_RPC_URL to an external node`,
  );
}

export function devChainDir(dataDir: string): string {
  return path.join(dataDir, "chain");
}

export async function startDevChain(options: DevChainOptions): Promise<DevChain> {
  const binary = resolveAnvilBinary();
  const chainDir = devChainDir(options.dataDir);
  mkdirSync(chainDir, { recursive: true });
  const statePath = path.join(chainDir, "anvil-state.json");
  const pidFile = path.join(chainDir, "anvil.pid");
  await stopLeftoverNode(pidFile, statePath, options.log);
  const args = [
    "--host", "127.0.0.1",
    "--port", String(options.port),
    "--chain-id", String(options.chainId ?? 3338),
    "--state", statePath,
    "--state-interval", String(options.stateIntervalSeconds ?? 2),
    // Finality two blocks behind the head (anvil: 2 x slots per epoch), so "finalized" reads (the 2.0 ownership
    // index) see a dev chain's writes within two blocks instead of 64.
    "--slots-in-an-epoch", "1",
  ];
  const log = createWriteStream(path.join(chainDir, "anvil.log"), { flags: "a" });
  log.write(`\n--- ${new Date().toISOString()} anvil ${args.join(" ")}\n`);
  const child = spawn(binary, args, { stdio: ["ignore", "pipe", "pipe"] });
  if (child.pid !== undefined) writeFileSync(pidFile, String(child.pid));
  child.stderr.pipe(log, { end: false });
  // "close" comes after the output pipes are drained, so the log is only ended once nothing more can be written.
  // A failed spawn may emit "error" without "close".
  const closed = new Promise<void>((resolve) => {
    child.once("close", () => resolve());
    child.once("error", () => resolve());
  });

  // Safety net: a parent that exits without calling stop() must not leave an orphaned node holding the port.
  const killOnExit = () => child.kill("SIGTERM");
  process.once("exit", killOnExit);
  let stopping: Promise<void> | undefined;
  const stop = () => {
    process.off("exit", killOnExit);
    return (stopping ??= stopProcess(child, closed, log).then(() => rmSync(pidFile, { force: true })));
  };
  try {
    const port = await waitForListening(child, log, options.startTimeoutMs ?? 20_000);
    const rpcUrl = `http://127.0.0.1:${port}`;
    await waitForRpc(rpcUrl, options.startTimeoutMs ?? 20_000);
    return { rpcUrl, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * Resolves with the port from anvil's `Listening on 127.0.0.1:<port>` line; rejects if anvil exits first. The output
 * is kept and scanned only until then: anvil prints a line per RPC request for as long as it runs, and a scan of
 * everything it printed on every chunk would grow in memory and CPU with the platform's uptime.
 */
export function waitForListening(child: ChildProcess, log: NodeJS.WritableStream, timeoutMs: number): Promise<number> {
  return new Promise((resolve, reject) => {
    let output = "";
    const timer = setTimeout(() => fail(new DevChainError(`anvil did not start within ${timeoutMs} ms`)), timeoutMs);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /Listening on [\d.]+:(\d+)/.exec(output);
      if (match) {
        cleanup();
        resolve(Number(match[1]));
      }
    };
    const onExit = (code: number | null) => {
      const addressInUse = /address already in use|AddrInUse|os error 98/i.test(output);
      fail(
        new DevChainError(
          addressInUse
            ? "anvil could not start: the port is already in use (set ANVIL_PORT or CHAIN_RPC_URL)"
            : `anvil exited during start (code ${code}); see anvil.log in the chain data directory`,
        ),
      );
    };
    const onError = (error: Error) => fail(new DevChainError(`anvil could not be spawned: ${error.message}`));
    const onStderr = (chunk: Buffer) => (output += chunk.toString());
    function cleanup() {
      clearTimeout(timer);
      child.off("exit", onExit);
      child.off("error", onError);
      child.stdout!.off("data", onData);
      child.stderr!.off("data", onStderr);
      output = "";
    }
    function fail(error: Error) {
      cleanup();
      reject(error);
    }
    // Everything anvil prints goes to the log; the first lines are also scanned for the port.
    child.stdout!.on("data", (chunk: Buffer) => log.write(chunk));
    child.stdout!.on("data", onData);
    child.stderr!.on("data", onStderr);
    child.once("exit", onExit);
    child.once("error", onError);
  });
}

async function waitForRpc(rpcUrl: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      const response = await fetch(rpcUrl, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_blockNumber", params: [] }),
        signal: AbortSignal.timeout(1000),
      });
      if (response.ok) return;
    } catch {
      // Not up yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new DevChainError(`anvil RPC at ${rpcUrl} did not answer within ${timeoutMs} ms`);
}

/**
 * Stops the node a killed platform left running on this state file, if any: SIGTERM (it dumps its state), SIGKILL
 * after 10 s. A pid that is no longer an anvil on this state file (exited, or reused by another program) is left alone.
 */
async function stopLeftoverNode(pidFile: string, statePath: string, log: (line: string) => void = () => {}): Promise<void> {
  if (!existsSync(pidFile)) return;
  const pid = Number.parseInt(readFileSync(pidFile, "utf8"), 10);
  rmSync(pidFile, { force: true });
  if (!Number.isInteger(pid) || pid <= 0 || !isAnvilOn(pid, statePath)) return;
  log(`chain: stopping anvil ${pid} left running by an earlier start (its state is dumped and loaded again)`);
  process.kill(pid, "SIGTERM");
  const deadline = Date.now() + 10_000;
  while (isRunning(pid)) {
    if (Date.now() > deadline) process.kill(pid, "SIGKILL");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The process's command line names anvil and this state file (Linux /proc; elsewhere nothing is stopped). */
function isAnvilOn(pid: number, statePath: string): boolean {
  try {
    const args = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
    return path.basename(args[0] ?? "").startsWith("anvil") && args.includes(statePath);
  } catch {
    return false;
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** SIGTERM makes anvil dump its state; wait for the exit so the file is complete. SIGKILL after a grace period. */
async function stopProcess(child: ChildProcess, closed: Promise<void>, log: NodeJS.WritableStream): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) {
    child.kill("SIGTERM");
    const killTimer = setTimeout(() => child.kill("SIGKILL"), 10_000);
    await closed;
    clearTimeout(killTimer);
  } else {
    await closed;
  }
  await new Promise<void>((resolve) => log.end(resolve));
}
