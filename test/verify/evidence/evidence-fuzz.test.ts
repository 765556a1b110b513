/**
 * Fuzzing evidence intake with the mutation generator (test/verify/evidence/evidence-mutations.ts), twice:
 * - in-process over the whole pipeline (parse -> shape -> checks): nothing throws, no mutant is accepted, and every
 *   mutant lands in the error class its generator promised;
 * - over HTTP against the real platform: thousands of mutants POSTed through the REST shim, each answered with its
 *   promised 400 code (never a 5xx), INVALID_REQUEST mutants never consuming the challenge.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDemoVendor } from "../../../subgraphs/shared/crypto/vendor-ca.js";
import { checkEvidence } from "../../../subgraphs/verify/evidence/check.js";
import { parseEvidenceFile } from "../../../subgraphs/verify/evidence/parse.js";
import { generateEvidenceMutants, MUTATION_CLASSES, type EvidenceMutant } from "./evidence-mutations.js";
import { KEY_USAGE, makeVendor, makeWorld } from "./evidence-fixtures.js";
import { evidenceFor, issueChallenge, postEvidence, startVerifyPlatform, type VerifyPlatform } from "../helpers.js";
import { keepAliveAgent, type HttpAnswer } from "../../support/http.js";
import { PLATFORM_START_TIMEOUT_MS } from "../../support/platform.js";
import { FUZZ_TEST_TIMEOUT_MS } from "../../support/timeouts.js";
import { expectReceipt, expectVerifyError } from "../../support/verify.js";

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

describe("evidence mutation fuzzing in-process", () => {
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
  }, FUZZ_TEST_TIMEOUT_MS);
});

describe("evidence mutation fuzzing over HTTP", () => {
  /**
   * A rejection is final for its challenge, so every challenge takes all its INVALID_REQUEST mutants, then exactly
   * one mutant of another class, then the valid file. That one mutant still getting its own answer (and not 409
   * NONCE_REPLAY) proves no INVALID_REQUEST mutant before it recorded a submission; when it was not a rejection, the
   * valid file is accepted at the end.
   */
  const CHALLENGES = 110;
  const SEED = 20260602;
  const WORKERS = 8;
  let p: VerifyPlatform;
  let foreignLeaves: { label: string; der: Uint8Array }[];

  beforeAll(async () => {
    p = await startVerifyPlatform({ VERIFY_OPEN_CHALLENGES_PER_MACHINE: "10000", VERIFY_OPEN_CHALLENGES_TOTAL: "10000" });
    const foreign = await (await createDemoVendor("fuzz-foreign-vendor")).issueChip("foreign");
    foreignLeaves = [
      { label: "another vendor", der: pemToDer(foreign.leafCertPem) },
      { label: "the vendor intermediate", der: pemToDer(p.demo.vendor.intermediateCertPem) },
      { label: "the vendor root", der: pemToDer(p.demo.vendor.rootCertPem) },
      { label: "another chip of the vendor", der: pemToDer(p.machine("active", 0).chip.leafCertPem) },
    ];
  }, PLATFORM_START_TIMEOUT_MS);
  afterAll(() => p?.close());

  const send = (body: Uint8Array) => postEvidence(p, body, { agent: keepAliveAgent });

  /**
   * The answer a mutant must get: its promised 400 code. Two documented refinements of the in-process classes: an
   * oversize body may be refused unparsed with 413, and a well-formed file whose transcript nonce was changed
   * answers a challenge that was never issued (the route finds challenges by that nonce): 404 CHALLENGE_NOT_FOUND.
   */
  function verdictProblem(mutant: EvidenceMutant, answer: HttpAnswer, nonce: string): string | undefined {
    const code = answer.status >= 400 && answer.text.startsWith("{") ? answer.json().detail?.code : undefined;
    const fits =
      (answer.status === 400 && code === "INVALID_REQUEST" && mutant.expected !== "EVIDENCE_REJECTED") ||
      (answer.status === 400 && code === "EVIDENCE_REJECTED" && mutant.expected !== "INVALID_REQUEST") ||
      (answer.status === 413 && code === "REQUEST_TOO_LARGE" && mutant.body.length > 16_384) ||
      (answer.status === 404 && code === "CHALLENGE_NOT_FOUND" && mutant.expected !== "INVALID_REQUEST" && transcriptNonce(mutant) !== nonce);
    if (fits) {
      expectVerifyError(answer, answer.status, code);
      return undefined;
    }
    return `#${mutant.index} ${mutant.mutationClass} (${mutant.description}): ${answer.status} ${answer.text.slice(0, 120)}, expected ${mutant.expected}`;
  }

  it(`${CHALLENGES} challenges, about 2000 mutants: each gets its promised code, never a 5xx, and never consumes wrongly`, async () => {
    const machine = p.machine("active", 1);
    const problems: string[] = [];
    const seen: Record<string, number> = {};
    let sent = 0;
    let accepted = 0;

    const fuzzOneChallenge = async (index: number) => {
      const challenge = await issueChallenge(p, machine.machineId, { agent: keepAliveAgent });
      const evidence = evidenceFor(challenge, machine);
      const mutants = generateEvidenceMutants(evidence, { count: MUTATION_CLASSES.length, seed: SEED + index, foreignLeaves });
      const harmless = mutants.filter((m) => m.expected === "INVALID_REQUEST");
      const others = mutants.filter((m) => m.expected !== "INVALID_REQUEST");
      const final = others[index % others.length];
      let rejected = false;
      for (const mutant of [...harmless, final]) {
        const answer = await send(mutant.body);
        sent += 1;
        const key = `${answer.status} ${answer.status < 500 ? (answer.json().detail?.code ?? "") : ""}`;
        seen[key] = (seen[key] ?? 0) + 1;
        const problem = verdictProblem(mutant, answer, challenge.nonce);
        if (problem) problems.push(problem);
        if (mutant === final && answer.status === 400 && answer.json().detail.code === "EVIDENCE_REJECTED") rejected = true;
      }
      const valid = await send(new TextEncoder().encode(evidence));
      if (rejected) expectVerifyError(valid, 409, "NONCE_REPLAY");
      else {
        expectReceipt(valid);
        accepted += 1;
      }
    };

    let next = 0;
    await Promise.all(
      Array.from({ length: WORKERS }, async () => {
        while (next < CHALLENGES) await fuzzOneChallenge(next++);
      }),
    );

    expect(problems).toEqual([]);
    expect(sent).toBeGreaterThanOrEqual(2000);
    expect(Object.keys(seen).filter((key) => key.startsWith("5"))).toEqual([]);
    expect(seen["400 EVIDENCE_REJECTED"]).toBeGreaterThanOrEqual(CHALLENGES / 2);
    expect(accepted).toBeGreaterThan(0); // some final mutants were INVALID_REQUEST after all: their valid file passed
  }, FUZZ_TEST_TIMEOUT_MS);
});

function transcriptNonce(mutant: EvidenceMutant): unknown {
  try {
    return JSON.parse(Buffer.from(mutant.body).toString("utf8")).transcript?.nonce;
  } catch {
    return undefined;
  }
}

function pemToDer(pem: string): Uint8Array {
  return new Uint8Array(Buffer.from(pem.replace(/-----[A-Z ]+-----|\s/g, ""), "base64"));
}
