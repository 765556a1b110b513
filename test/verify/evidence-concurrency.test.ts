/**
 * Concurrent evidence submissions: one check per submission, one receipt, no stuck challenge, caps that hold across
 * instances. Correctness across replicas comes from the database (row locks, conditional updates, an advisory lock
 * for issuance), so the multi-instance cases run two platform instances on one PostgreSQL database and one chain.
 */
import { rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHash } from "node:crypto";
import { addressEnvName, CONTRACT_NAMES } from "../../subgraphs/shared/config.js";
import { buildEvidence } from "../../subgraphs/verify/evidence/kit.js";
import type { ChipChallenge } from "../../subgraphs/verify/evidence/schema.js";
import { graphql, PLATFORM_START_TIMEOUT_MS } from "../support/platform.js";
import { evidenceFor, issueChallenge, postChallenge, postEvidence, startVerifyPlatform, withMember, type VerifyPlatform } from "./helpers.js";
import { POSTGRES_SKIP_MESSAGE, sql, usesPostgres } from "../support/db.js";
import { ONBOARDING_TOKEN, OPERATOR_TOKEN, type HttpAnswer } from "../support/http.js";
import { expectReceipt, expectVerifyError } from "../support/verify.js";

const PER_MACHINE_CAP = 3;
const TOTAL_CAP = 5;
const SHARED_ENV = {
  VERIFY_CHECKING_LEASE_SECONDS: "1",
  VERIFY_OPEN_CHALLENGES_PER_MACHINE: String(PER_MACHINE_CAP),
  VERIFY_OPEN_CHALLENGES_TOTAL: String(TOTAL_CAP),
  ONBOARDING_TOKENS: ONBOARDING_TOKEN,
  OPERATOR_TOKENS: OPERATOR_TOKEN,
};

let a: VerifyPlatform;
beforeAll(async () => {
  a = await startVerifyPlatform(SHARED_ENV);
}, PLATFORM_START_TIMEOUT_MS);
afterAll(() => a?.close());

const walkthrough = () => a.machine("active", 1);

async function freshEvidence(issuer: VerifyPlatform = a) {
  const challenge = await issueChallenge(issuer, walkthrough().machineId);
  return { challenge, evidence: evidenceFor(challenge, walkthrough()) };
}

/** Every answer to the same file while it is checked: the receipt, or 409 SUBMISSION_IN_PROGRESS with Retry-After. */
function expectReceiptOrInProgress(answers: HttpAnswer[]): string {
  const receipts = new Set<string>();
  for (const answer of answers) {
    if (answer.status === 409) {
      expectVerifyError(answer, 409, "SUBMISSION_IN_PROGRESS");
      const retryAfter = Number(answer.headers["retry-after"]);
      expect(answer.headers["retry-after"]).toMatch(/^\d+$/);
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(120);
    } else {
      receipts.add(expectReceipt(answer));
    }
  }
  expect(receipts.size).toBe(1);
  return [...receipts][0];
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

describe("one instance", () => {
  it("the same file 10 times in parallel: one check, one receipt; the others wait with Retry-After", async () => {
    const { evidence } = await freshEvidence();
    const answers = await Promise.all(Array.from({ length: 10 }, () => postEvidence(a, evidence)));
    const receiptId = expectReceiptOrInProgress(answers);
    expect(await acceptedEvidence(a, receiptId)).toHaveLength(1);
    expectReceipt(await postEvidence(a, evidence), receiptId);
  });

  it("different files for one challenge in parallel: exactly one is recorded, the rest are replays", async () => {
    const { challenge, evidence } = await freshEvidence();
    const files = [evidence, otherValidFile(challenge), withMember(evidence, "revocationStatus", "evaluated")];
    const answers = await Promise.all(files.map((file) => postEvidence(a, file)));
    expectOneWinner(answers);
  });
});

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

/** One submission won (202, 400 EVIDENCE_REJECTED or, while it is checked, 409 SUBMISSION_IN_PROGRESS never for
 * another file); every other file got 409 NONCE_REPLAY. */
function expectOneWinner(answers: HttpAnswer[]) {
  const replays = answers.filter((answer) => answer.status === 409);
  const winners = answers.filter((answer) => answer.status !== 409);
  expect(winners).toHaveLength(1);
  expect([202, 400]).toContain(winners[0].status);
  for (const replay of replays) expectVerifyError(replay, 409, "NONCE_REPLAY");
}

describe.skipIf(!usesPostgres)(`two instances on one PostgreSQL database (${usesPostgres ? "PostgreSQL" : POSTGRES_SKIP_MESSAGE})`, () => {
  let b: VerifyPlatform;
  const bundle = path.join(os.tmpdir(), `vendor-bundle-${process.pid}.pem`);
  beforeAll(async () => {
    // Instance B shares A's chain (external RPC, A's contract addresses, A's vendor CA as trust bundle) and database.
    await writeFile(bundle, `${a.demo.vendor.rootCertPem}\n${a.demo.vendor.intermediateCertPem}\n`);
    const addresses = Object.fromEntries(
      CONTRACT_NAMES.map((name) => [addressEnvName(name), a.platform.chain!.addresses[name]!]),
    );
    b = await startVerifyPlatform({
      ...SHARED_ENV,
      ...addresses,
      DATABASE_URL: a.databaseUrl!,
      CHAIN_RPC_URL: a.platform.chain!.rpcUrl,
      VENDOR_TRUST_BUNDLE: bundle,
    });
  }, PLATFORM_START_TIMEOUT_MS);
  afterAll(async () => {
    await b?.close();
    await rm(bundle, { force: true });
  });

  it("a checker that crashed mid-check holds the challenge only until its lease runs out", async () => {
    const { challenge, evidence } = await freshEvidence(a);
    // The state a checker leaves when it dies after claiming: `checking`, its submission recorded, a lease. Writing
    // the row is the only way to stop a checker between its claim and its finish without patching product code.
    const nonceHash = createHash("sha256").update(Buffer.from(challenge.nonce.slice(2), "hex")).digest("hex");
    const submissionHash = createHash("sha256").update(evidence, "utf8").digest("hex");
    const [{ lease_end }] = await sql<{ lease_end: Date }>(
      a.databaseUrl!,
      `UPDATE verify_challenge SET state = 'checking', submission_hash = $2, checking_until = now() + interval '2 seconds'
       WHERE nonce_hash = $1 AND state = 'issued' RETURNING checking_until AS lease_end`,
      [nonceHash, submissionHash],
    );

    const whileHeld = await postEvidence(b, evidence);
    expectVerifyError(whileHeld, 409, "SUBMISSION_IN_PROGRESS");
    expect(Number(whileHeld.headers["retry-after"])).toBeGreaterThanOrEqual(1);
    expect(Number(whileHeld.headers["retry-after"])).toBeLessThanOrEqual(2);
    expectVerifyError(await postEvidence(b, otherValidFile(challenge)), 409, "NONCE_REPLAY");

    await new Promise((resolve) => setTimeout(resolve, lease_end.getTime() - Date.now() + 100));
    const receiptId = expectReceipt(await postEvidence(b, evidence));
    expectReceipt(await postEvidence(a, evidence), receiptId);
  });

  it("the same file at both instances at once: one check, one receipt", async () => {
    const { evidence } = await freshEvidence(a);
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => postEvidence(i % 2 ? a : b, evidence)));
    const receiptId = expectReceiptOrInProgress(answers);
    const [{ n }] = await sql<{ n: string }>(a.databaseUrl!, "SELECT count(*) AS n FROM verify_evidence WHERE receipt_id = $1", [receiptId]);
    expect(Number(n)).toBe(1);
  });

  it("different files for one challenge at both instances at once: exactly one wins, the other is a replay", async () => {
    for (let round = 0; round < 4; round++) {
      const { challenge, evidence } = await freshEvidence(round % 2 ? a : b);
      const answers = await Promise.all([postEvidence(a, evidence), postEvidence(b, otherValidFile(challenge))]);
      expectOneWinner(answers);
    }
  });

  it("the open-challenge caps hold across instances issuing in parallel", async () => {
    const perMachine = a.machine("active", 3).machineId; // machine 6: no challenge so far
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) => postChallenge(i % 2 ? a : b, JSON.stringify({ machineId: perMachine }))),
    );
    expect(answers.filter((answer) => answer.status === 201)).toHaveLength(PER_MACHINE_CAP);
    for (const answer of answers.filter((x) => x.status !== 201)) expectVerifyError(answer, 429, "RATE_LIMITED");

    // Every earlier challenge of this file is consumed or rejected, so TOTAL_CAP - PER_MACHINE_CAP remain in total.
    const other = a.machine("active", 2).machineId; // machine 5
    const more = await Promise.all(
      Array.from({ length: 10 }, (_, i) => postChallenge(i % 2 ? a : b, JSON.stringify({ machineId: other }))),
    );
    expect(more.filter((answer) => answer.status === 201)).toHaveLength(TOTAL_CAP - PER_MACHINE_CAP);
    for (const answer of more.filter((x) => x.status !== 201)) expectVerifyError(answer, 429, "RATE_LIMITED");
    const [{ n }] = await sql<{ n: string }>(
      a.databaseUrl!,
      "SELECT count(*) AS n FROM verify_challenge WHERE state IN ('issued', 'checking') AND expires_at > extract(epoch from now())",
    );
    expect(Number(n)).toBe(TOTAL_CAP);
  });
});
