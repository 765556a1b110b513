/**
 * The challenge state machine in the database. Every transition is one transaction with the challenge row locked
 * (`SELECT ... FOR UPDATE`) or one conditional update, so it holds across several service instances sharing one
 * PostgreSQL: nothing here relies on in-process locks.
 *
 *   issued --claim--> checking --finish--> consumed | rejected
 *   checking --release (503: chain/store failure)--> issued        (submission hash stays recorded)
 *   checking --lease runs out (crashed checker)--> claimable again by the same file
 *   issued, expired and unused --cleanup--> deleted
 */
import type { Database } from "../shared/db/index.js";
import { IssuanceCapsRepository } from "./issuance-caps.repository.js";

export type ChallengeState = "issued" | "checking" | "consumed" | "rejected";

export interface ChallengeRow {
  id: string;
  machineId: string;
  machineDid: string;
  didController: string;
  chainId: string;
  profile: string;
  protocol: string;
  verifier: string;
  expiresAt: bigint;
}

export interface NewChallenge extends ChallengeRow {
  nonceHash: string;
  issuedAt: Date;
}

export type ClaimOutcome =
  | { kind: "notFound" }
  | { kind: "replay" }
  | { kind: "consumed"; receiptId: string }
  | { kind: "rejected" }
  | { kind: "inProgress"; retryAfterSeconds: number }
  | { kind: "expired" }
  | { kind: "claimed"; challenge: ChallengeRow; lease: Date };

export interface AcceptedEvidence {
  receiptId: string;
  chipRef: string;
  evidenceHash: string;
  body: string;
}

export interface PendingEvidence {
  receiptId: string;
  machineId: string;
  chipRef: string;
  evidenceHash: string;
  acceptedAt: Date;
}

/** Accepted evidence with the machine context its challenge bound (for the re-check before attestation). */
export interface StoredEvidence extends PendingEvidence {
  attestedAt: Date | null;
  challenge: { didController: string; chainId: string };
}

export class OpenChallengeCapExceeded extends Error {}

interface LockedChallenge extends ChallengeRow {
  state: ChallengeState;
  submissionHash: string | null;
  checkingUntil: Date | null;
  receiptId: string | null;
}

export class ChallengeRepository {
  private readonly caps: IssuanceCapsRepository;
  constructor(private readonly db: Database) {
    this.caps = new IssuanceCapsRepository(db);
  }

  /**
   * Inserts the challenge unless the machine or the service is at its cap of open challenges, exactly across
   * instances and without a global lock: counter rows per machine and per shard of the total
   * (issuance-caps.repository.ts).
   */
  async createWithinCaps(
    c: NewChallenge,
    caps: { perMachine: number; total: number },
    nowSeconds: bigint,
  ): Promise<void> {
    if (!(await this.caps.insertWithinCaps(c, caps, nowSeconds))) throw new OpenChallengeCapExceeded();
  }

  /**
   * Records the submission and takes the checking lease, or says why not. One transaction with the row locked, so two
   * instances receiving the same file at once cannot both check it.
   */
  async claim(nonceHash: string, submissionHash: string, nowMs: number, leaseMs: number): Promise<ClaimOutcome> {
    return this.db.prisma.$transaction(async (tx) => {
      const [row] = await tx.$queryRaw<LockedChallenge[]>`
        SELECT id, machine_id AS "machineId", machine_did AS "machineDid", did_controller AS "didController",
               chain_id AS "chainId", profile, protocol, verifier, expires_at AS "expiresAt", state,
               submission_hash AS "submissionHash", checking_until AS "checkingUntil", receipt_id AS "receiptId"
        FROM verify_challenge WHERE nonce_hash = ${nonceHash} FOR UPDATE`;
      if (!row) return { kind: "notFound" };
      if (row.submissionHash !== null && row.submissionHash !== submissionHash) return { kind: "replay" };
      if (row.state === "consumed") return { kind: "consumed", receiptId: row.receiptId! };
      if (row.state === "rejected") return { kind: "rejected" };
      const leaseHeld = row.state === "checking" && row.checkingUntil !== null && row.checkingUntil.getTime() > nowMs;
      if (leaseHeld) {
        return { kind: "inProgress", retryAfterSeconds: Math.ceil((row.checkingUntil!.getTime() - nowMs) / 1000) };
      }
      if (BigInt(Math.floor(nowMs / 1000)) >= BigInt(row.expiresAt)) return { kind: "expired" };
      const lease = new Date(nowMs + leaseMs);
      await tx.verifyChallenge.update({
        where: { id: row.id },
        data: { state: "checking", submissionHash, checkingUntil: lease },
      });
      const { state: _s, submissionHash: _h, checkingUntil: _c, receiptId: _r, ...challenge } = row;
      return { kind: "claimed", challenge: { ...challenge, expiresAt: BigInt(challenge.expiresAt) }, lease };
    });
  }

  /** Consumes the challenge and stores the evidence, if this checker still holds the lease. */
  async finishAccepted(challenge: ChallengeRow, lease: Date, evidence: AcceptedEvidence, now: Date): Promise<boolean> {
    return this.db.prisma.$transaction(async (tx) => {
      const { count } = await tx.verifyChallenge.updateMany({
        where: { id: challenge.id, state: "checking", checkingUntil: lease },
        data: { state: "consumed", receiptId: evidence.receiptId, checkingUntil: null },
      });
      if (count !== 1) return false;
      await tx.verifyEvidence.create({
        data: { ...evidence, challengeId: challenge.id, machineId: challenge.machineId, acceptedAt: now },
      });
      return true;
    });
  }

  /** Marks the challenge rejected (final), if this checker still holds the lease. */
  async finishRejected(challengeId: string, lease: Date, reason: string): Promise<boolean> {
    const { count } = await this.db.prisma.verifyChallenge.updateMany({
      where: { id: challengeId, state: "checking", checkingUntil: lease },
      data: { state: "rejected", rejectReason: reason, checkingUntil: null },
    });
    return count === 1;
  }

  /** Gives the lease back after a transient failure; the recorded submission hash stays. */
  async release(challengeId: string, lease: Date): Promise<void> {
    await this.db.prisma.verifyChallenge.updateMany({
      where: { id: challengeId, state: "checking", checkingUntil: lease },
      data: { state: "issued", checkingUntil: null },
    });
  }

  /** Deletes challenges that expired unused at least `graceSeconds` ago. Consumed and rejected ones are kept. */
  async deleteExpiredUnused(nowSeconds: bigint, graceSeconds: number): Promise<number> {
    const { count } = await this.db.prisma.verifyChallenge.deleteMany({
      where: {
        state: { in: ["issued", "checking"] },
        expiresAt: { lte: nowSeconds - BigInt(graceSeconds) },
        OR: [{ checkingUntil: null }, { checkingUntil: { lt: new Date(Number(nowSeconds) * 1000) } }],
      },
    });
    return count;
  }

  /** Evidence accepted after `acceptedAfter` and not attested yet, oldest first. */
  pendingEvidence(limit: number, acceptedAfter: Date): Promise<PendingEvidence[]> {
    return this.db.prisma.verifyEvidence.findMany({
      where: { attestedAt: null, acceptedAt: { gt: acceptedAfter } },
      orderBy: { acceptedAt: "asc" },
      take: limit,
      select: { receiptId: true, machineId: true, chipRef: true, evidenceHash: true, acceptedAt: true },
    });
  }

  findEvidence(receiptId: string): Promise<StoredEvidence | null> {
    return this.db.prisma.verifyEvidence.findUnique({
      where: { receiptId },
      select: {
        receiptId: true,
        machineId: true,
        chipRef: true,
        evidenceHash: true,
        acceptedAt: true,
        attestedAt: true,
        challenge: { select: { didController: true, chainId: true } },
      },
    });
  }

  /** Records the attestation unless the evidence was attested already or expired meanwhile (accepted before the cutoff). */
  async markAttested(receiptId: string, attestationUid: string, at: Date, acceptedAfter: Date): Promise<boolean> {
    const { count } = await this.db.prisma.verifyEvidence.updateMany({
      where: { receiptId, attestedAt: null, acceptedAt: { gt: acceptedAfter } },
      data: { attestationUid, attestedAt: at },
    });
    return count === 1;
  }
}
