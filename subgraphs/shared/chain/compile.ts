/**
 * Compiles contracts/*.sol with solc-js into artifacts.json ({ contractName: { abi, bytecode } }).
 *
 * `npm run contracts` rewrites the committed artifacts.json; the platform only reads it (artifacts.ts), so boot never
 * pays for a compile. test/chain/artifacts.test.ts recompiles and fails when the committed file is stale.
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { CONTRACT_NAMES } from "../config.js";
import type { InterfaceAbi } from "ethers";
import type { Artifacts } from "./artifacts.js";

const require = createRequire(import.meta.url);
const solc = require("solc") as { compile(input: string): string };

const chainDir = path.dirname(fileURLToPath(import.meta.url));
export const CONTRACTS_DIR = path.join(chainDir, "contracts");
export const ARTIFACTS_PATH = path.join(chainDir, "artifacts.json");

interface SolcOutput {
  errors?: { severity: "error" | "warning" | "info"; formattedMessage: string }[];
  contracts?: Record<string, Record<string, { abi: InterfaceAbi; evm: { bytecode: { object: string } } }>>;
}

/** Compiles every .sol file and returns the deployable contracts (the ones named in CONTRACT_NAMES), keys sorted. */
export function compileContracts(): Artifacts {
  const sources: Record<string, { content: string }> = {};
  for (const file of readdirSync(CONTRACTS_DIR).filter((f) => f.endsWith(".sol")).sort()) {
    sources[file] = { content: readFileSync(path.join(CONTRACTS_DIR, file), "utf8") };
  }
  const input = {
    language: "Solidity",
    sources,
    settings: {
      optimizer: { enabled: true, runs: 200 },
      outputSelection: { "*": { "*": ["abi", "evm.bytecode.object"] } },
    },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input))) as SolcOutput;
  const errors = (output.errors ?? []).filter((e) => e.severity === "error");
  if (errors.length > 0) throw new Error(`solc failed:\n${errors.map((e) => e.formattedMessage).join("\n")}`);

  const artifacts = {} as Artifacts;
  for (const name of [...CONTRACT_NAMES].sort()) {
    const compiled = output.contracts?.[`${name}.sol`]?.[name];
    if (!compiled) throw new Error(`solc produced no contract ${name} (expected in contracts/${name}.sol)`);
    artifacts[name] = { abi: compiled.abi, bytecode: `0x${compiled.evm.bytecode.object}` };
  }
  return artifacts;
}

export function serializeArtifacts(artifacts: Artifacts): string {
  return `${JSON.stringify(artifacts, null, 2)}\n`;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  writeFileSync(ARTIFACTS_PATH, serializeArtifacts(compileContracts()));
  process.stderr.write(`wrote ${path.relative(process.cwd(), ARTIFACTS_PATH)}\n`);
}
