/**
 * Operator CLI start-up (target: every command under 1 s): wall time from spawn to exit of one command per
 * command family, as `npm run cli -- ...` (what the README tells operators to type: npm, then the compiled CLI),
 * as `node dist/gateway/cli/main.js ...` (the compiled CLI alone) and as `node --import tsx gateway/cli/main.ts ...`
 * (the sources, as tests and development run them), beside `node -e 0` and `npm -v` (npm's own start-up) in the same run. Medians of
 * BENCH_CLI_ROUNDS runs (default 5), rounds interleaved so machine noise hits every form alike.
 *
 * The demo fixture comes from a seeded chain that is stopped again before measuring: commands that talk to the chain
 * or to the platform load everything they need, then fail fast on a refused connection (exit 1), so what is measured
 * is start-up, not a transaction; offline commands (demo, evidence build, identity sign) run to completion.
 * Alone: `BENCH_ONLY=cli-startup npm run bench`.
 */
import { spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Wallet } from "ethers";
import { readDemoFixture } from "../../subgraphs/shared/chain/demo-fixture.js";
import { startSeededChain } from "../chain/helpers.js";
import { freePort } from "../support/processes.js";
import { makeChallenge } from "../verify/evidence/evidence-fixtures.js";
import { median } from "./stats.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const DEAD = "0x000000000000000000000000000000000000dEaD";

/** Milliseconds from spawn to exit, and the exit code (null: killed after 30 s, a command that did not stop). */
function timeRun(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ ms: number; code: number | null }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: root, env, stdio: "ignore", detached: true });
    const timer = setTimeout(() => process.kill(-child.pid!, "SIGKILL"), 30_000);
    child.on("error", reject);
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ ms: performance.now() - started, code });
    });
  });
}

export async function benchCliStartup(rounds = Number(process.env.BENCH_CLI_ROUNDS ?? 5)): Promise<void> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), "cli-bench-"));
  try {
    const seeded = await startSeededChain(dataDir);
    await seeded.close();
    const fixture = readDemoFixture(dataDir)!;
    const machine2 = fixture.machines.find((m) => m.machineId === "2")!;
    const challenge = path.join(dataDir, "challenge.json");
    const controller = new Wallet(machine2.controllerPrivateKey).address;
    await writeFile(challenge, JSON.stringify(makeChallenge(controller, { machineId: "2", expiresAt: String(Math.floor(Date.now() / 1000) + 3600) })));
    const identityChallenge = path.join(dataDir, "identity-challenge.json");
    await writeFile(identityChallenge, JSON.stringify({ item: { challengeId: "mic_bench", message: "Bind\nMachine ID: 2\n" } }));
    const closed = `http://127.0.0.1:${await freePort()}`;
    const env = {
      ...process.env,
      DATA_DIR: dataDir,
      CHAIN_RPC_URL: "",
      GRAPHQL_URL: `${closed}/graphql`,
      LOG_LEVEL: "silent",
    };
    const families: Record<string, string[]> = {
      "--help": ["--help"],
      controller: ["controller", "set", "--machine", "2", "--address", DEAD],
      deactivate: ["deactivate", "--machine", "15"],
      attest: ["attest", "chip", "--machine", "2"],
      revoke: ["revoke", "--uid", `0x${"11".repeat(32)}`],
      event: ["event", "submit", "--machine", "7", "--type", "revenue", "--value", "1"],
      "evidence (build)": ["evidence", "--challenge", challenge, "--machine", "2"],
      "evidence pending": ["evidence", "pending"],
      monetization: ["monetization", "sign", "--machine", "7", "--opt-in"],
      identity: ["identity", "sign", "--challenge", identityChallenge],
      agent: ["agent", "run", "--machine", "mach_bench", "--api", closed],
      market: ["market", "search", "--machine", "mach_bench", "--api", closed],
      demo: ["demo"],
    };
    const forms = {
      "npm run cli": (args: string[]) => ["npm", ["run", "-s", "cli", "--", ...args]] as const,
      "node dist (compiled)": (args: string[]) => [process.execPath, [path.join("dist", "gateway", "cli", "main.js"), ...args]] as const,
      "node --import tsx": (args: string[]) => [process.execPath, ["--import", "tsx", path.join("gateway", "cli", "main.ts"), ...args]] as const,
    };
    const baselines = {
      "node -e 0": [process.execPath, ["-e", "0"]] as const,
      "npm -v": ["npm", ["-v"]] as const,
    };
    const samples = new Map<string, number[]>();
    const codes = new Map<string, number | null>();
    const record = (key: string, ms: number) => samples.set(key, [...(samples.get(key) ?? []), ms]);
    for (let round = 0; round < rounds; round++) {
      for (const [name, [command, args]] of Object.entries(baselines)) record(name, (await timeRun(command, [...args], env)).ms);
      for (const [family, args] of Object.entries(families)) {
        for (const [form, make] of Object.entries(forms)) {
          const [command, formArgs] = make(args);
          const { ms, code } = await timeRun(command, [...formArgs], env);
          record(`${family}|${form}`, ms);
          codes.set(family, code);
        }
      }
    }
    const ms = (key: string) => `${median(samples.get(key)!).toFixed(0).padStart(6)} ms`;
    console.log(`\nCLI start-up, spawn to exit, medians of ${rounds} (load average ${os.loadavg().map((x) => x.toFixed(1)).join(" / ")})`);
    for (const name of Object.keys(baselines)) console.log(`  ${name.padEnd(20)} ${ms(name)}   (baseline)`);
    console.log(`  ${"command".padEnd(20)} ${Object.keys(forms).map((f) => f.padStart(22)).join("")}   exit`);
    for (const family of Object.keys(families)) {
      const cells = Object.keys(forms).map((form) => ms(`${family}|${form}`).padStart(22)).join("");
      console.log(`  ${family.padEnd(20)} ${cells}   ${codes.get(family)}`);
    }
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await benchCliStartup();
