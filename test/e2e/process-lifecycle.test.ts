/**
 * How the platform's processes stop, as a supervisor, a container runtime or a terminal stops them: SIGTERM or SIGINT
 * to `npm start` (npm -> node) or to the server itself stops everything within seconds, a request in flight is
 * finished first, and the chain's state is dumped; a server killed with SIGKILL leaves its anvil node running, and the
 * next start finds that node by its pid file and stops it instead of failing on the port. Real processes on one data
 * directory and fixed ports, as a user's machine has them.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, roleAllEnv, startCommand, type RoleProcess } from "../support/processes.js";
import { PLATFORM_START_TIMEOUT_MS } from "../support/timeouts.js";
import { waitUntil } from "../support/wait.js";

/**
 * No elapsed-time bounds (a loaded machine would break them): "stops in time" is the server's own deadline (SHUTDOWN_GRACE_MS plus its slack,
 * after which it logs "shutdown overran its deadline" and exits 1), so a stop in time is "stopped" logged without an
 * overrun; a hang fails on the test timeout.
 */
let dataDir: string;
let env: Record<string, string>;
let ports: { http: number; markets: number; graphql: number; anvil: number; mcr2: number; altchain: number };
const running: RoleProcess[] = [];

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), "lifecycle-"));
  const [http, markets, graphql, anvil, mcr2, altchain] = await Promise.all(Array.from({ length: 6 }, freePort));
  ports = { http, markets, graphql, anvil, mcr2, altchain };
  env = {
    ...roleAllEnv(dataDir, [http, markets, graphql, anvil, mcr2, altchain]),
    SHUTDOWN_GRACE_MS: "3000",
    // `npm start`'s own defaults: children inherit this process's environment, and a DATABASE_URL set for the
    // PostgreSQL suites would put these platforms on that shared server database (where other runs' challenges
    // fill the open-challenge caps) instead of PGlite.
    DATABASE_URL: "",
  };
});
afterAll(async () => {
  for (const process of running) await process.stop();
  await rm(dataDir, { recursive: true, force: true });
});

// A start resolves on the server's own "ready" line; its deadline is only a hang guard (a loaded run outran 180 s).
const npmStart = () => startCommand("npm", ["start"], env, PLATFORM_START_TIMEOUT_MS).then(track);
const serverStart = () =>
  startCommand(process.execPath, ["--import", "tsx", "gateway/main.ts", "all"], env, PLATFORM_START_TIMEOUT_MS).then(track);
/** Test budgets: the starts' hang guards plus a minute for the rest. */
const ONE_START_MS = PLATFORM_START_TIMEOUT_MS + 60_000;
const TWO_STARTS_MS = 2 * PLATFORM_START_TIMEOUT_MS + 60_000;
function track(started: RoleProcess): RoleProcess {
  running.push(started);
  return started;
}

const anvilPid = async () => Number(await readFile(path.join(dataDir, "chain", "anvil.pid"), "utf8"));
const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
const portIsFree = (port: number) =>
  new Promise<boolean>((resolve) => {
    const server = net.createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });

/** Sends `signal` and resolves with the process's exit code once it exited. */
async function stopWith(started: RoleProcess, pid: number, signal: NodeJS.Signals): Promise<number | null> {
  const exited = new Promise<number | null>((resolve) => started.child.once("exit", (code) => resolve(code)));
  process.kill(pid, signal);
  return exited;
}

/**
 * Stopped by its own shutdown, within its deadline: "stopped" logged (an overrun exits before it), no overrun, and
 * exit code 0 when the signal went to the server itself (npm reports a forwarded signal its own way).
 */
function expectStoppedInTime(started: RoleProcess, code: number | null, server = false) {
  if (server) expect(code).toBe(0);
  expect(started.output()).toMatch(/^stopped$/m);
  expect(started.output()).not.toContain("overran its deadline");
}

async function rpc(method: string): Promise<string> {
  const response = await fetch(`http://127.0.0.1:${ports.anvil}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params: [] }),
  });
  return ((await response.json()) as { result: string }).result;
}

/** Everything the platform held is released: its anvil exited and every port is free again. */
async function expectAllReleased(anvil: number) {
  expect(isAlive(anvil)).toBe(false);
  for (const port of Object.values(ports)) expect(await portIsFree(port)).toBe(true);
}

/** Sends a challenge request's head and half its body; `finish()` sends the rest and reads the answer. */
function requestInFlight(): Promise<{ finish(): Promise<string> }> {
  const body = '{"machineId":"2"}';
  return new Promise((resolve, reject) => {
    const socket = net.connect(ports.http, "127.0.0.1", () => {
      socket.write(
        [
          "POST /v1/verify/chip/challenge HTTP/1.1",
          "Host: x",
          "Authorization: Bearer dev-onboarding-token",
          "Content-Type: application/json",
          `Content-Length: ${body.length}`,
          "",
          body.slice(0, 5),
        ].join("\r\n"),
      );
      let answer = "";
      socket.on("data", (chunk) => (answer += chunk.toString()));
      const ended = new Promise<string>((done) => socket.on("close", () => done(answer)));
      resolve({
        finish: () => {
          socket.write(body.slice(5)); // not end(): a client that half-closes gets no answer from Node
          return ended;
        },
      });
    });
    socket.on("error", reject);
  });
}

describe("stopping `npm start`", () => {
  it("SIGTERM to npm: the request in flight is answered, the chain state dumped, everything stopped within seconds", async () => {
    const started = await npmStart();
    const anvil = await anvilPid();
    // Blocks mined just now are newer than the last periodic dump: only a dump at shutdown keeps them.
    for (let i = 0; i < 3; i++) await rpc("evm_mine");
    const head = Number(BigInt(await rpc("eth_blockNumber")));
    const inFlight = await requestInFlight();

    const stopping = stopWith(started, started.child.pid!, "SIGTERM");
    // The server has begun its shutdown (an event it logs, not a sleep) before the request's body is complete.
    await waitUntil(() => started.output().includes("SIGTERM: shutting down"));
    const answer = await inFlight.finish();
    expect(answer).toMatch(/^HTTP\/1\.1 201/);
    expectStoppedInTime(started, await stopping);

    await expectAllReleased(anvil);
    const state = JSON.parse(await readFile(path.join(dataDir, "chain", "anvil-state.json"), "utf8"));
    expect(state.best_block_number).toBeGreaterThanOrEqual(head);
    expect(started.output()).toContain("SIGTERM: shutting down");
    expect(started.output()).toMatch(/^stopped$/m);
  }, ONE_START_MS);

  it("SIGINT to npm alone (not the whole process group) stops everything too", async () => {
    const started = await npmStart();
    const anvil = await anvilPid();
    expectStoppedInTime(started, await stopWith(started, started.child.pid!, "SIGINT"));
    await expectAllReleased(anvil);
    expect(started.output()).toContain("SIGINT: shutting down");
  }, ONE_START_MS);
});

describe("the server process itself", () => {
  it("killed with SIGKILL, it leaves anvil behind; the next start stops that node and starts on the same port", async () => {
    const crashed = await serverStart();
    const orphan = await anvilPid();
    crashed.child.kill("SIGKILL");
    await new Promise((resolve) => crashed.child.once("exit", resolve));
    expect(isAlive(orphan)).toBe(true);
    expect(await portIsFree(ports.anvil)).toBe(false);

    const next = await serverStart();
    expect(next.output()).toContain(`chain: stopping anvil ${orphan} left running by an earlier start`);
    expect(isAlive(orphan)).toBe(false);
    const anvil = await anvilPid();
    expect(anvil).not.toBe(orphan);
    // The platform serves with the chain it started (the demo fixture survived the crash).
    const read = await fetch(`http://127.0.0.1:${ports.http}/v1/verify/machines/1`);
    expect(read.status).toBe(200);

    expectStoppedInTime(next, await stopWith(next, next.child.pid!, "SIGTERM"), true);
    await expectAllReleased(anvil);
  }, TWO_STARTS_MS);
});
