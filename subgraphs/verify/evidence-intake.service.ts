/**
 * Takes a chip evidence file: canonical-form and shape checks (400 INVALID_REQUEST, challenge untouched), then the
 * challenge state machine (challenge.repository.ts) and every check of document 1 against the machine context
 * rebuilt from the chain. A failed check is final for the challenge; chain and store failures leave it retryable with
 * the same file.
 */
import type { ChainReads } from "../shared/chain/types.js";
import type { PlatformConfig } from "../shared/config.js";
import { parseMachineId } from "../shared/machine-id.js";
import type { ChallengeRepository, ChallengeRow } from "./challenge.repository.js";
import { nonceHashOf } from "./challenge.service.js";
import { IntakeStatus, type IntakeReceipt } from "./challenge.type.js";
import { trustedNowMs, type Clock } from "./clock.js";
import { VerifyErrors } from "./errors.js";
import { checkEvidence } from "./evidence/check.js";
import { receiptIdFor } from "./evidence/format.js";
import { parseEvidenceFile } from "./evidence/parse.js";
import type { EvidenceFile } from "./evidence/schema.js";
import type { TrustBundle } from "./evidence/trust.js";
import { readMachineContext } from "./machine-context.js";
import { inStore } from "./store.js";

/** Stored like `nonce_hash`: lowercase hex without `0x`. */
const submissionHashOf = (evidenceHash: string) => evidenceHash.slice(2);
const RETRY_AFTER_MIN = 1;
const RETRY_AFTER_MAX = 120;

export class EvidenceIntakeService {
  constructor(
    private readonly repository: ChallengeRepository,
    private readonly chain: ChainReads,
    private readonly trust: () => Promise<TrustBundle>,
    private readonly config: PlatformConfig,
    private readonly clock: Clock,
    private readonly log: (error: unknown) => void,
  ) {}

  async submit(body: string): Promise<IntakeReceipt> {
    // Size, canonical bytes, closed shape: every failure leaves the challenge untouched.
    const parsed = parseEvidenceFile(Buffer.from(body, "utf8"));
    if (!parsed.ok) throw VerifyErrors.invalidRequest();
    const { evidence, evidenceHash } = parsed;
    const nowMs = trustedNowMs(this.clock, this.config.verify.clockFloorUnix);
    const leaseMs = this.config.verify.checkingLeaseSeconds * 1000;

    const claim = await inStore(
      () => this.repository.claim(nonceHashOf(evidence.transcript.nonce), submissionHashOf(evidenceHash), nowMs, leaseMs),
      this.log,
    );
    switch (claim.kind) {
      case "notFound":
        throw VerifyErrors.challengeNotFound();
      case "replay":
        throw VerifyErrors.nonceReplay();
      case "consumed":
        return { receiptId: claim.receiptId, status: IntakeStatus.ACCEPTED };
      case "rejected":
        throw VerifyErrors.evidenceRejected();
      case "inProgress":
        throw VerifyErrors.submissionInProgress({
          retryAfter: Math.min(RETRY_AFTER_MAX, Math.max(RETRY_AFTER_MIN, claim.retryAfterSeconds)),
        });
      case "expired":
        throw VerifyErrors.challengeExpired();
      case "claimed":
        return this.check(body, evidence, claim.challenge, claim.lease, evidenceHash);
    }
  }

  private async check(
    body: string,
    evidence: EvidenceFile,
    challenge: ChallengeRow,
    lease: Date,
    evidenceHash: string,
  ): Promise<IntakeReceipt> {
    let verdict: { ok: true; chipRef: string } | { ok: false; reason: string };
    try {
      verdict = await this.verdict(evidence, challenge);
    } catch (error) {
      // Chain or trust-store failure: give the lease back so the same file can be retried at once.
      await this.repository.release(challenge.id, lease).catch(this.log);
      throw error;
    }
    const now = new Date(this.clock.now());
    if (!verdict.ok) {
      const recorded = await inStore(() => this.repository.finishRejected(challenge.id, lease, verdict.reason), this.log);
      if (!recorded) return this.afterLostLease(body);
      throw VerifyErrors.evidenceRejected();
    }
    const receiptId = receiptIdFor(challenge.protocol, challenge.id, evidenceHash);
    const stored = await inStore(
      () =>
        this.repository.finishAccepted(
          challenge,
          lease,
          { receiptId, chipRef: verdict.chipRef, evidenceHash, body },
          now,
        ),
      this.log,
    );
    if (!stored) return this.afterLostLease(body);
    return { receiptId, status: IntakeStatus.ACCEPTED };
  }

  /** Our lease ran out and another instance finished first: answer as a retry of the same file would be answered. */
  private afterLostLease(body: string): Promise<IntakeReceipt> {
    return this.submit(body);
  }

  private async verdict(
    evidence: EvidenceFile,
    challenge: ChallengeRow,
  ): Promise<{ ok: true; chipRef: string } | { ok: false; reason: string }> {
    const machineId = parseMachineId(challenge.machineId)!;
    const lookup = await readMachineContext(this.chain, machineId, this.config.namespace.didMethod);
    if (lookup.kind === "chainUnavailable") throw VerifyErrors.chainUnavailable();
    if (lookup.kind === "notFound") return { ok: false, reason: "machine no longer in the registry" };
    if (lookup.kind === "deactivated") return { ok: false, reason: "machine deactivated since the challenge" };
    let trust: TrustBundle;
    try {
      trust = await this.trust();
    } catch (error) {
      this.log(error);
      throw VerifyErrors.storeUnavailable();
    }
    const result = await checkEvidence(evidence, {
      // The nonce itself is not stored; the transcript's nonce is the one whose hash found this challenge.
      challenge: { ...challenge, expiresAt: challenge.expiresAt.toString(), nonce: evidence.transcript.nonce },
      machine: { ...lookup.context, effectiveController: lookup.context.didController },
      trust,
      now: new Date(this.clock.now()),
      namespace: this.config.namespace,
      vendor: this.config.vendor,
    });
    return result.ok ? { ok: true, chipRef: result.chipRef } : { ok: false, reason: result.reason };
  }
}
