/**
 * In-process fuzzing of the whole intake pipeline (parse -> shape -> checks) with the mutation generator: nothing
 * throws, no mutant is accepted, and every mutant lands in the error class its generator promised.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { checkEvidence } from "../../subgraphs/verify/evidence/check.js";
import { parseEvidenceFile } from "../../subgraphs/verify/evidence/parse.js";
import { generateEvidenceMutants, MUTATION_CLASSES, type EvidenceMutant } from "../support/evidence-mutations.js";
import { KEY_USAGE, makeVendor, makeWorld } from "./evidence-fixtures.js";

type World = Awaited<ReturnType<typeof makeWorld>>;
let world: World;
let mutants: EvidenceMutant[];

beforeAll(async () => {
  world = await makeWorld();
  const other = makeVendor("other");
  mutants = generateEvidenceMutants(world.evidenceText, {
    count: 3000,
    seed: 20260601,
    foreignLeaves: [
      { label: "another vendor", der: other.issueChip("one").der },
      { label: "the vendor intermediate", der: world.vendor.intermediateDer },
      { label: "the vendor root", der: world.vendor.rootDer },
      { label: "a CA leaf", der: world.vendor.issueChip("ca", { ca: true, keyUsage: KEY_USAGE.keyCertSign }).der },
      { label: "another chip of the vendor", der: world.vendor.issueChip("two").der },
      { label: "an expired chip", der: world.vendor.issueChip("old", { notAfter: new Date("2026-02-01Z") }).der },
    ],
  });
});

async function classify(body: Uint8Array): Promise<"INVALID_REQUEST" | "EVIDENCE_REJECTED" | "ACCEPTED"> {
  const parsed = parseEvidenceFile(body);
  if (!parsed.ok) return "INVALID_REQUEST";
  const result = await checkEvidence(parsed.evidence, world.context());
  return result.ok ? "ACCEPTED" : "EVIDENCE_REJECTED";
}

describe("evidence mutation fuzzing", () => {
  it("generates 3000 reproducible mutants across every class", () => {
    expect(mutants).toHaveLength(3000);
    expect(new Set(mutants.map((m) => m.mutationClass))).toEqual(new Set(MUTATION_CLASSES));
    const again = generateEvidenceMutants(world.evidenceText, { count: 50, seed: 20260601 });
    expect(again.map((m) => m.description)).toEqual(
      generateEvidenceMutants(world.evidenceText, { count: 50, seed: 20260601 }).map((m) => m.description),
    );
  });

  it("accepts the original", async () => {
    expect(await classify(new TextEncoder().encode(world.evidenceText))).toBe("ACCEPTED");
  });

  it("never throws, never accepts a mutant, and lands each in its promised class", async () => {
    const wrong: string[] = [];
    const seen: Record<string, number> = {};
    for (const mutant of mutants) {
      const outcome = await classify(mutant.body); // a throw fails the test
      seen[outcome] = (seen[outcome] ?? 0) + 1;
      const fits = outcome !== "ACCEPTED" && (mutant.expected === "EITHER" || mutant.expected === outcome);
      if (!fits) wrong.push(`#${mutant.index} ${mutant.mutationClass} (${mutant.description}): ${outcome}, expected ${mutant.expected}`);
    }
    expect(wrong).toEqual([]);
    expect(seen.INVALID_REQUEST).toBeGreaterThan(1000);
    expect(seen.EVIDENCE_REJECTED).toBeGreaterThan(500);
  });
});
