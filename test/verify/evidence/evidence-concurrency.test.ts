/**
 * Concurrent evidence submissions: one check per submission, one receipt, no stuck challenge, caps that hold across
 * instances. Correctness across replicas comes from the database (row locks, conditional updates, an advisory lock
 * for issuance), so the multi-instance cases run two platform instances on one PostgreSQL database and one chain.
 *
 * What is counted is what could actually be duplicated: the checks run (every check past its claim loads the vendor
 * trust bundle; the platforms' loader is wrapped to count those calls), the evidence rows of the challenge, and the
 * entries of the operator's pending list. The in-progress 409 is proved deterministically: the first checker is held
 * inside its lease by a barrier in that loader, and only then is the second request sent. Leases run out by moving
 * the injected clock, not by waiting.
 */
import { rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { StartOptions } from "../../../gateway/platform.js";
import { addressEnvName, CONTRACT_NAMES } from "../../../subgraphs/shared/config.js";
import { buildEvidence } from "../../../subgraphs/verify/evidence/kit.js";
import type { ChipChallenge } from "../../../subgraphs/verify/evidence/schema.js";
import { holdFirst, type Gate } from "../../support/barrier.js";
import { offsetClock } from "../../support/clock.js";
import { POSTGRES_SKIP_MESSAGE, usesPostgres } from "../../support/db.js";
import { OPERATOR_TOKEN, ONBOARDING_TOKEN, type HttpAnswer } from "../../support/http.js";
import { graphql, PLATFORM_START_TIMEOUT_MS } from "../../support/platform.js";
import { challengeRow, evidenceRowsFor, expectReceipt, expectVerifyError, submissionHash } from "../../support/verify.js";
import { freshEvidence as freshEvidenceOn, postChallenge, postEvidence, startVerifyPlatform, withMember, type VerifyPlatform } from "../helpers.js";

const PER_MACHINE_CAP = 3;
const TOTAL_CAP = 5;
const LEASE_SECONDS = 20;
const TTL_SECONDS = 300;
const SHARED_ENV = {
  VERIFY_CHECKING_LEASE_SECONDS: String(LEASE_SECONDS),
  VERIFY_CHALLENGE_TTL_SECONDS: String(TTL_SECONDS),
  VERIFY_OPEN_CHALLENGES_PER_MACHINE: String(PER_MACHINE_CAP),
  VERIFY_OPEN_CHALLENGES_TOTAL: String(TOTAL_CAP),
  ONBOARDING_TOKENS: ONBOARDING_TOKEN,
  OPERATOR_TOKENS: OPERATOR_TOKEN,
};

/** The instances' clock: the system clock plus an offset the tests move (leases and challenges run out at once). */
const clock = offsetClock();
/** Checks run since start, over every instance: each check past its claim loads the trust bundle once. */
let checks = 0;
/** When set, the first check to arrive is held inside its lease until the test releases it. */
let gate: Gate | undefined;
const options: StartOptions = {
  clock,
  wrapTrust: (load) => async () => {
    checks += 1;
    await gate?.pass();
    return load();
  },
};

let a: VerifyPlatform;
beforeAll(async () => {
  a = await startVerifyPlatform(SHARED_ENV, options);
}, PLATFORM_START_TIMEOUT_MS);
afterAll(() => a?.close());
// Every test starts with no open challenge left by another: the earlier ones have all expired.
beforeEach(() => {
  clock.offsetMs += (TTL_SECONDS + 1) * 1000;
  gate = undefined;
});

const walkthrough = () => a.machine("active", 1);
const freshEvidence = (issuer: VerifyPlatform = a) => freshEvidenceOn(issuer, walkthrough());

/**
 * 409 SUBMISSION_IN_PROGRESS with a Retry-After within the lease. A request that read the clock before the first
 * claim committed (they race; it then waited for the row) sees up to one second more than the lease: `slackSeconds`.
 */
function expectInProgress(answer: HttpAnswer, slackSeconds = 0) {
  expectVerifyError(answer, 409, "SUBMISSION_IN_PROGRESS");
  expect(answer.headers["retry-after"]).toMatch(/^\d+$/);
  expect(Number(answer.headers["retry-after"])).toBeGreaterThanOrEqual(1);
  expect(Number(answer.headers["retry-after"])).toBeLessThanOrEqual(LEASE_SECONDS + slackSeconds);
}

/** The operator's list of accepted evidence: one entry per check that passed. */
async function acceptedEvidence(p: VerifyPlatform, receiptId: string) {
  const { body } = await graphql(
    p.graphql,
    "query { pendingChipEvidence(limit: 500) { receiptId machineId } }",
    {},
    { authorization: `Bearer ${OPERATOR_TOKEN}` },
  );
  return body.data.pendingChipEvidence.filter((record: { receiptId: string }) => record.receiptId === receiptId);
}

/** Valid evidence for the same challenge from another chip: a second file that would be accepted on its own. */
function otherValidFile(challenge: ChipChallenge): string {
  const chip = a.machine("active", 0).chip;
  return buildEvidence({
    challenge,
    leafCertPem: chip.leafCertPem,
    chipPrivateKeyPem: chip.privateKeyPem,
    controllerPrivateKey: walkthrough().controllerPrivateKey,
  });
}

/**
 * Sends `evidence` to `first`, holds its check inside the lease, runs `whileHeld`, releases it and returns its answer.
 */
async function withHeldChecker<T>(first: VerifyPlatform, evidence: string, whileHeld: () => Promise<T>) {
  gate = holdFirst();
  const checksBefore = checks;
  const held = postEvidence(first, evidence);
  await gate.entered;
  expect(checks).toBe(checksBefore + 1);
  let during: T;
  try {
    during = await whileHeld();
  } finally {
    gate.release();
  }
  return { answer: await held, during, checksBefore };
}

describe("one instance", () => {
  it("the same file again while the first is checked: 409 SUBMISSION_IN_PROGRESS; one check, one receipt, one row", async () => {
    const { challenge, evidence } = await freshEvidence();
    const { answer, during, checksBefore } = await withHeldChecker(a, evidence, async () => {
      expect(await challengeRow(a, challenge.nonce)).toMatchObject({ state: "checking", submissionHash: submissionHash(evidence) });
      return Promise.all(Array.from({ length: 9 }, () => postEvidence(a, evidence)));
    });
    for (const waiting of during) expectInProgress(waiting);
    const receiptId = expectReceipt(answer);
    expect(checks).toBe(checksBefore + 1);
    expect((await evidenceRowsFor(a, challenge.nonce)).map((row) => row.receiptId)).toEqual([receiptId]);
    expect(await acceptedEvidence(a, receiptId)).toHaveLength(1);
    // Afterwards the same file gets the same receipt without another check.
    expectReceipt(await postEvidence(a, evidence), receiptId);
    expect(checks).toBe(checksBefore + 1);
  });

  it("another file while the first is checked: 409 NONCE_REPLAY; the first is the one recorded", async () => {
    const { challenge, evidence } = await freshEvidence();
    const others = [otherValidFile(challenge), withMember(evidence, "revocationStatus", "evaluated")];
    const { answer, during, checksBefore } = await withHeldChecker(a, evidence, () =>
      Promise.all(others.map((file) => postEvidence(a, file))),
    );
    for (const replay of during) expectVerifyError(replay, 409, "NONCE_REPLAY");
    const receiptId = expectReceipt(answer);
    expect(checks).toBe(checksBefore + 1);
    const rows = await evidenceRowsFor(a, challenge.nonce);
    expect(rows.map((row) => row.receiptId)).toEqual([receiptId]);
    expect(await challengeRow(a, challenge.nonce)).toMatchObject({ state: "consumed", submissionHash: submissionHash(evidence) });
  });

  it("the same file 10 times at once, unordered: one check, one receipt, one row", async () => {
    const { challenge, evidence } = await freshEvidence();
    const checksBefore = checks;
    const answers = await Promise.all(Array.from({ length: 10 }, () => postEvidence(a, evidence)));
    const receipts = new Set(answers.filter((answer) => answer.status === 202).map((answer) => expectReceipt(answer)));
    for (const answer of answers.filter((x) => x.status !== 202)) expectInProgress(answer, 1);
    expect(receipts.size).toBe(1);
    expect(checks).toBe(checksBefore + 1);
    expect(await evidenceRowsFor(a, challenge.nonce)).toHaveLength(1);
  });

  it("different files for one challenge at once, unordered: exactly one is recorded, the rest are replays", async () => {
    const { challenge, evidence } = await freshEvidence();
    const files = [evidence, otherValidFile(challenge), withMember(evidence, "revocationStatus", "evaluated")];
    const answers = await Promise.all(files.map((file) => postEvidence(a, file)));
    const winners = expectOneWinner(answers);
    const row = await challengeRow(a, challenge.nonce);
    expect(row!.submissionHash).toBe(submissionHash(files[answers.indexOf(winners[0]!)]!));
    expect(await evidenceRowsFor(a, challenge.nonce)).toHaveLength(winners[0]!.status === 202 ? 1 : 0);
  });

  it("a checker stuck past its lease loses the challenge to a retry, then answers with the retry's receipt", async () => {
    const { challenge, evidence } = await freshEvidence();
    const { answer, during, checksBefore } = await withHeldChecker(a, evidence, async () => {
      expectInProgress(await postEvidence(a, evidence));
      clock.offsetMs += (LEASE_SECONDS + 1) * 1000; // the held checker's lease runs out
      return postEvidence(a, evidence);
    });
    const receiptId = expectReceipt(during);
    expectReceipt(answer, receiptId);
    expect(checks).toBe(checksBefore + 2);
    expect((await evidenceRowsFor(a, challenge.nonce)).map((row) => row.receiptId)).toEqual([receiptId]);
  });
});

/** One submission won (202, or 400 EVIDENCE_REJECTED); every other file got 409 NONCE_REPLAY. */
function expectOneWinner(answers: HttpAnswer[]) {
  const replays = answers.filter((answer) => answer.status === 409);
  const winners = answers.filter((answer) => answer.status !== 409);
  expect(winners).toHaveLength(1);
  expect([202, 400]).toContain(winners[0]!.status);
  for (const replay of replays) expectVerifyError(replay, 409, "NONCE_REPLAY");
  return winners;
}

describe.skipIf(!usesPostgres)(`two instances on one PostgreSQL database (${usesPostgres ? "PostgreSQL" : POSTGRES_SKIP_MESSAGE})`, () => {
  let b: VerifyPlatform;
  const bundle = path.join(os.tmpdir(), `vendor-bundle-${process.pid}.pem`);
  beforeAll(async () => {
    // Instance B shares A's chain (external RPC, A's contract addresses, A's vendor CA as trust bundle), database,
    // clock and check counter.
    await writeFile(bundle, `${a.demo.vendor.rootCertPem}\n${a.demo.vendor.intermediateCertPem}\n`);
    const addresses = Object.fromEntries(CONTRACT_NAMES.map((name) => [addressEnvName(name), a.platform.chain!.addresses[name]!]));
    b = await startVerifyPlatform(
      { ...SHARED_ENV, ...addresses, DATABASE_URL: a.databaseUrl!, CHAIN_RPC_URL: a.platform.chain!.rpcUrl, VENDOR_TRUST_BUNDLE: bundle },
      options,
    );
  }, PLATFORM_START_TIMEOUT_MS);
  afterAll(async () => {
    await b?.close();
    await rm(bundle, { force: true });
  });

  it("a checker held at A: B answers 409 SUBMISSION_IN_PROGRESS for the same file and NONCE_REPLAY for another", async () => {
    const { challenge, evidence } = await freshEvidence(a);
    const { answer, during, checksBefore } = await withHeldChecker(a, evidence, async () => [
      await postEvidence(b, evidence),
      await postEvidence(b, otherValidFile(challenge)),
    ]);
    expectInProgress(during[0]!);
    expectVerifyError(during[1]!, 409, "NONCE_REPLAY");
    const receiptId = expectReceipt(answer);
    expectReceipt(await postEvidence(b, evidence), receiptId);
    expect(checks).toBe(checksBefore + 1);
    expect(await evidenceRowsFor(b, challenge.nonce)).toHaveLength(1);
  });

  it("a checker that hangs at A past its lease: B takes the challenge over, and A answers with B's receipt", async () => {
    const { challenge, evidence } = await freshEvidence(a);
    const { answer, during, checksBefore } = await withHeldChecker(a, evidence, async () => {
      expectInProgress(await postEvidence(b, evidence));
      clock.offsetMs += (LEASE_SECONDS + 1) * 1000;
      return postEvidence(b, evidence);
    });
    const receiptId = expectReceipt(during);
    expectReceipt(answer, receiptId);
    expect(checks).toBe(checksBefore + 2);
    expect((await evidenceRowsFor(a, challenge.nonce)).map((row) => row.receiptId)).toEqual([receiptId]);
  });

  it("the same file at both instances at once: one check, one receipt, one row", async () => {
    const { challenge, evidence } = await freshEvidence(a);
    const checksBefore = checks;
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => postEvidence(i % 2 ? a : b, evidence)));
    const receipts = new Set(answers.filter((answer) => answer.status === 202).map((answer) => expectReceipt(answer)));
    for (const answer of answers.filter((x) => x.status !== 202)) expectInProgress(answer, 1);
    expect(receipts.size).toBe(1);
    expect(checks).toBe(checksBefore + 1);
    expect(await evidenceRowsFor(a, challenge.nonce)).toHaveLength(1);
  });

  it("different files for one challenge at both instances at once: exactly one wins, the other is a replay", async () => {
    for (let round = 0; round < 4; round++) {
      const { challenge, evidence } = await freshEvidence(round % 2 ? a : b);
      const answers = await Promise.all([postEvidence(a, evidence), postEvidence(b, otherValidFile(challenge))]);
      expectOneWinner(answers);
      expect(await evidenceRowsFor(a, challenge.nonce)).toHaveLength(1);
    }
  });

  it("the open-challenge caps hold across instances issuing in parallel", async () => {
    // beforeEach expired every earlier challenge: none is open.
    const perMachine = a.machine("active", 3).machineId;
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) => postChallenge(i % 2 ? a : b, JSON.stringify({ machineId: perMachine }))),
    );
    expect(answers.filter((answer) => answer.status === 201)).toHaveLength(PER_MACHINE_CAP);
    for (const answer of answers.filter((x) => x.status !== 201)) expectVerifyError(answer, 429, "RATE_LIMITED");

    const other = a.machine("active", 2).machineId;
    const more = await Promise.all(
      Array.from({ length: 10 }, (_, i) => postChallenge(i % 2 ? a : b, JSON.stringify({ machineId: other }))),
    );
    expect(more.filter((answer) => answer.status === 201)).toHaveLength(TOTAL_CAP - PER_MACHINE_CAP);
    for (const answer of more.filter((x) => x.status !== 201)) expectVerifyError(answer, 429, "RATE_LIMITED");
  });
});
