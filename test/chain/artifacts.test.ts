import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { CONTRACT_NAMES } from "../../subgraphs/shared/config.js";
import { ARTIFACTS_PATH, compileContracts, serializeArtifacts } from "../../subgraphs/shared/chain/compile.js";

describe("artifacts.json", () => {
  it("matches a fresh compile of contracts/*.sol (run `npm run contracts` when this fails)", () => {
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
