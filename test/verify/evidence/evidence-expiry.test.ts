/**
 * POST /v1/verify/chip/evidence (document 1), what needs a platform of its own: challenge expiry and the cleanup of
 * expired and finished challenges (an injected clock: no test waits for the wall clock), the periodic cleanup job,
 * and the 503s that leave a challenge retryable with the same file (an unreadable trust store, a stopped chain node).
 * The route's answers row by row of the challenge state table are in evidence-route.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SUBMIT_EVIDENCE, freshEvidence, graphqlCode, otherFileFor, postEvidence, startVerifyPlatform, stopChain, type VerifyPlatform } from "../helpers.js";
import { manualClock } from "../../support/clock.js";
import { eventually } from "../../support/wait.js";
import { BEARER } from "../../support/http.js";
import { PLATFORM_START_TIMEOUT_MS } from "../../support/platform.js";
import { challengeRow, challengeRowCount, evidenceRowsFor, expectNoEcho, expectReceipt, expectVerifyError } from "../../support/verify.js";

describe("expiry and cleanup (dedicated platform with an injected clock, cleanup grace 60 s)", () => {
  const GRACE_SECONDS = 60;
  const clock = manualClock();
  let q: VerifyPlatform;
  beforeAll(async () => {
    q = await startVerifyPlatform(
      { VERIFY_CHALLENGE_TTL_SECONDS: "30", VERIFY_CLEANUP_GRACE_SECONDS: String(GRACE_SECONDS), VERIFY_OPEN_CHALLENGES_PER_MACHINE: "1000" },
      { clock },
    );
  }, PLATFORM_START_TIMEOUT_MS);
  afterAll(() => q?.close());

  it("consumed stays consumed, rejected stays rejected, unused expires; cleanup waits out the grace period", async () => {
    const consumed = await freshEvidence(q);
    const rejected = await freshEvidence(q);
    const unused = await freshEvidence(q);
    expect(Number(unused.challenge.expiresAt)).toBe(Math.floor(clock.now() / 1000) + 30);
    const badFile = otherFileFor(rejected.evidence);
    const receiptId = expectReceipt(await postEvidence(q, consumed.evidence));
    expectVerifyError(await postEvidence(q, badFile), 400, "EVIDENCE_REJECTED");

    // One second before expiry the unused challenge is still open (expiry is `now >= expiresAt`) ...
    clock.set(Number(unused.challenge.expiresAt) * 1000 - 1000);
    expect(await challengeRow(q, unused.challenge.nonce)).toMatchObject({ state: "issued" });
    // ... at expiresAt it is expired.
    clock.set(Number(unused.challenge.expiresAt) * 1000);
    expectReceipt(await postEvidence(q, consumed.evidence), receiptId); // same receipt, even after expiry
    expectVerifyError(await postEvidence(q, badFile), 400, "EVIDENCE_REJECTED");
    expectVerifyError(await postEvidence(q, unused.evidence), 409, "CHALLENGE_EXPIRED");
    expectVerifyError(await postEvidence(q, unused.evidence), 409, "CHALLENGE_EXPIRED");
    // Nothing was recorded for the expired challenge: another file is expired too, not a replay.
    expectVerifyError(await postEvidence(q, otherFileFor(unused.evidence)), 409, "CHALLENGE_EXPIRED");
    expect((await graphqlCode(q, SUBMIT_EVIDENCE, { evidence: unused.evidence }, BEARER)).code).toBe("CHALLENGE_EXPIRED");
    expect(await challengeRow(q, unused.challenge.nonce)).toMatchObject({ submissionHash: null, receiptId: null });

    // Within the grace period the cleanup keeps the expired challenge ...
    clock.set((Number(unused.challenge.expiresAt) + GRACE_SECONDS - 1) * 1000);
    expect(await q.platform.services.verify!.challenges.cleanup()).toBe(0);
    expectVerifyError(await postEvidence(q, unused.evidence), 409, "CHALLENGE_EXPIRED");
    // ... and removes it once the grace period has passed.
    clock.set((Number(unused.challenge.expiresAt) + GRACE_SECONDS) * 1000);
    expect(await q.platform.services.verify!.challenges.cleanup()).toBe(1);
    expect(await challengeRow(q, unused.challenge.nonce)).toBeUndefined();
    expectVerifyError(await postEvidence(q, unused.evidence), 404, "CHALLENGE_NOT_FOUND");
    expect((await graphqlCode(q, SUBMIT_EVIDENCE, { evidence: unused.evidence }, BEARER)).code).toBe("CHALLENGE_NOT_FOUND");
    expectReceipt(await postEvidence(q, consumed.evidence), receiptId); // cleanup keeps consumed challenges
    expectVerifyError(await postEvidence(q, badFile), 400, "EVIDENCE_REJECTED"); // and rejected ones
    expect(await challengeRow(q, consumed.challenge.nonce)).toMatchObject({ state: "consumed", receiptId });
    expect(await challengeRow(q, rejected.challenge.nonce)).toMatchObject({ state: "rejected" });
  });
});

describe("the periodic cleanup job (dedicated platform: VERIFY_CLEANUP_INTERVAL_MS 50, grace 0, injected clock)", () => {
  const clock = manualClock();
  let q: VerifyPlatform;
  beforeAll(async () => {
    q = await startVerifyPlatform({ VERIFY_CLEANUP_INTERVAL_MS: "50", VERIFY_CLEANUP_GRACE_SECONDS: "0" }, { clock });
  }, PLATFORM_START_TIMEOUT_MS);
  afterAll(() => q?.close());

  it("removes an expired unused challenge by itself, and keeps an open one", async () => {
    const expiring = await freshEvidence(q);
    clock.advance(10_000);
    const open = await freshEvidence(q);
    expect(Number(open.challenge.expiresAt)).toBeGreaterThan(Number(expiring.challenge.expiresAt));
    // Nothing has expired yet: the job runs every 50 ms and removes nothing.
    const before = await challengeRowCount(q);
    clock.set(Number(expiring.challenge.expiresAt) * 1000);
    // The job, not the test, removes the row: wait for it.
    await eventually(async () => ((await challengeRow(q, expiring.challenge.nonce)) === undefined ? true : undefined));
    expect(await challengeRowCount(q)).toBe(before - 1);
    expect(await challengeRow(q, open.challenge.nonce)).toMatchObject({ state: "issued" });
    expectVerifyError(await postEvidence(q, expiring.evidence), 404, "CHALLENGE_NOT_FOUND");
    expectReceipt(await postEvidence(q, open.evidence));
  });
});

describe("503s leave the challenge retryable with the same file", () => {
  let q: VerifyPlatform;
  beforeAll(async () => {
    // The trust bundle is loaded on first use: a missing file makes every check answer 503 VERIFY_STORE_UNAVAILABLE.
    q = await startVerifyPlatform({ VENDOR_TRUST_BUNDLE: "/nonexistent/vendor-roots.pem" });
  }, PLATFORM_START_TIMEOUT_MS);
  afterAll(() => q?.close());

  async function expectRetryable503(on: VerifyPlatform, evidence: string, nonce: string, code: string) {
    for (let i = 0; i < 2; i++) {
      const answer = await postEvidence(on, evidence);
      expectVerifyError(answer, 503, code);
      expectNoEcho(answer, nonce);
    }
    expect((await graphqlCode(on, SUBMIT_EVIDENCE, { evidence }, BEARER)).code).toBe(code);
    // The submission is recorded: another file for the challenge is a replay, not a second attempt.
    expectVerifyError(await postEvidence(on, otherFileFor(evidence)), 409, "NONCE_REPLAY");
    expectVerifyError(await postEvidence(on, evidence), 503, code);
    const row = await challengeRow(on, nonce);
    expect(row).toMatchObject({ state: "issued", receiptId: null, checkingUntil: null });
    expect(row!.submissionHash).toMatch(/^[0-9a-f]{64}$/);
    expect(await evidenceRowsFor(on, nonce)).toEqual([]);
  }

  it("503 VERIFY_STORE_UNAVAILABLE (trust store unreadable), then 503 CHAIN_UNAVAILABLE (chain node stopped)", async () => {
    const storeCase = await freshEvidence(q);
    const chainCase = await freshEvidence(q);
    await expectRetryable503(q, storeCase.evidence, storeCase.challenge.nonce, "VERIFY_STORE_UNAVAILABLE");
    await stopChain(q);
    await expectRetryable503(q, chainCase.evidence, chainCase.challenge.nonce, "CHAIN_UNAVAILABLE");
  });
});
