import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { CONTRACT_NAMES } from "../../subgraphs/shared/config.js";
import { ARTIFACTS_PATH, compileContracts, serializeArtifacts } from "../../subgraphs/shared/chain/compile.js";

describe("artifacts.json", () => {
  // A harness cap, not a speed claim: solc-js compiles the ten contracts on one core in about 10 s idle, and past the
  // fast project's 30 s when other suites load the machine (seen at load average 20).
  it("matches a fresh compile of contracts/*.sol (run `npm run contracts` when this fails)", { timeout: 180_000 }, () => {
    const fresh = serializeArtifacts(compileContracts());
    expect(readFileSync(ARTIFACTS_PATH, "utf8") === fresh, "artifacts.json is stale: run `npm run contracts`").toBe(true);
  });

  it("holds every platform contract with ABI and bytecode", () => {
    const artifacts = JSON.parse(readFileSync(ARTIFACTS_PATH, "utf8")) as Record<string, { abi: unknown[]; bytecode: string }>;
    expect(Object.keys(artifacts)).toEqual([...CONTRACT_NAMES].sort());
    for (const name of CONTRACT_NAMES) {
      expect(artifacts[name].abi.length).toBeGreaterThan(0);
      expect(artifacts[name].bytecode).toMatch(/^0x[0-9a-f]{100,}$/);
    }
  });
});
