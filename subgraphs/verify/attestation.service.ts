/**
 * The operator's side of chip verification: list accepted evidence awaiting attestation, check one before the chip
 * attestation is sent, and record that the attestation is on chain. The service holds no chain key: the operator CLI
 * sends the attestation transaction, and this service only accepts an attestation UID that the registry shows for
 * the same machine, chipRef and evidence.
 *
 * Evidence proves the chip to the machine context its challenge bound (active machine, DID controller, chain). Before
 * attesting and again when recording, that context is rebuilt from the chain at its head: a machine deactivated, or
 * given another controller, since the evidence was accepted is refused (MACHINE_CONTEXT_CHANGED). Evidence not
 * attested within VERIFY_EVIDENCE_TTL_SECONDS expires: no longer listed, no longer attestable (EVIDENCE_EXPIRED).
 */
import type { ChainReads } from "../shared/chain/types.js";
import type { Clock } from "../shared/clock.js";
import type { PlatformConfig } from "../shared/config.js";
import { ChainUnavailableError, DomainError } from "../shared/errors.js";
import { parseMachineId } from "../shared/machine-id.js";
import type { ChipEvidenceRecord } from "./attestation.type.js";
import type { ChallengeRepository, PendingEvidence, StoredEvidence } from "./challenge.repository.js";
import { VerifyErrors } from "./errors.js";
import { readMachineContext } from "./machine-context.js";
import { inStore } from "./store.js";

const UID = /^0x[0-9a-fA-F]{64}$/;
const RECEIPT_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Operator codes (GraphQL only; no REST route carries them). */
const OperatorErrors = {
  receiptNotFound: () => new DomainError("RECEIPT_NOT_FOUND", "No accepted evidence with this receipt."),
  alreadyAttested: () => new DomainError("EVIDENCE_ALREADY_ATTESTED", "This evidence is attested already."),
  expired: () => new DomainError("EVIDENCE_EXPIRED", "This evidence was not attested in time; the machine needs a new challenge."),
  contextChanged: () =>
    new DomainError(
      "MACHINE_CONTEXT_CHANGED",
      "The machine is no longer active with the DID controller and chain its challenge bound; it needs a new challenge.",
    ),
  mismatch: () => new DomainError("ATTESTATION_MISMATCH", "The registry holds no matching chip attestation."),
} as const;

const toRecord = (row: PendingEvidence & { attestedAt?: Date | null }): ChipEvidenceRecord => ({
  receiptId: row.receiptId,
  machineId: row.machineId,
  chipRef: row.chipRef,
  evidenceHash: row.evidenceHash,
  acceptedAt: row.acceptedAt.toISOString(),
  attestedAt: row.attestedAt ? row.attestedAt.toISOString() : null,
});

export class AttestationService {
  constructor(
    private readonly repository: ChallengeRepository,
    private readonly chain: ChainReads,
    private readonly config: PlatformConfig,
    private readonly clock: Clock,
    private readonly log: (error: unknown) => void,
  ) {}

  async pending(limit: number): Promise<ChipEvidenceRecord[]> {
    if (!Number.isInteger(limit) || limit < 1 || limit > 500) throw VerifyErrors.invalidRequest();
    const rows = await inStore(() => this.repository.pendingEvidence(limit, this.expiryCutoff()), this.log);
    return rows.map(toRecord);
  }

  /** The evidence, if it may be attested now: not attested, not expired, its machine context unchanged. */
  async attestable(receiptId: string): Promise<ChipEvidenceRecord> {
    if (!RECEIPT_ID.test(receiptId)) throw VerifyErrors.invalidRequest();
    const evidence = await this.findEvidence(receiptId);
    if (evidence.attestedAt) throw OperatorErrors.alreadyAttested();
    await this.checkStillValid(evidence);
    return toRecord(evidence);
  }

  async record(receiptId: string, attestationUid: string): Promise<ChipEvidenceRecord> {
    if (!UID.test(attestationUid) || !RECEIPT_ID.test(receiptId)) throw VerifyErrors.invalidRequest();
    const evidence = await this.findEvidence(receiptId);
    // Recorded already: a repeat with the matching uid answers the record (idempotent), any other uid is refused.
    if (!evidence.attestedAt) await this.checkStillValid(evidence);
    const attestation = await this.chainRead(() => this.chain.getChipAttestation(attestationUid));
    const matches =
      attestation !== null &&
      attestation.machineId.toString() === evidence.machineId &&
      attestation.chipRef.toLowerCase() === evidence.chipRef.toLowerCase() &&
      attestation.evidenceHash.toLowerCase() === evidence.evidenceHash.toLowerCase() &&
      !attestation.revoked;
    if (!matches) throw OperatorErrors.mismatch();
    if (evidence.attestedAt) return toRecord(evidence);
    const at = new Date(this.clock.now());
    const marked = await inStore(
      () => this.repository.markAttested(receiptId, attestationUid.toLowerCase(), at, this.expiryCutoff()),
      this.log,
    );
    // Not marked: another operator recorded it first (answer as a repeat would), or it expired just now.
    if (!marked) return this.record(receiptId, attestationUid);
    return toRecord({ ...evidence, attestedAt: at });
  }

  private async findEvidence(receiptId: string): Promise<StoredEvidence> {
    const evidence = await inStore(() => this.repository.findEvidence(receiptId), this.log);
    if (!evidence) throw OperatorErrors.receiptNotFound();
    return evidence;
  }

  /** Evidence accepted at or before this instant has expired. */
  private expiryCutoff(): Date {
    return new Date(this.clock.now() - this.config.verify.evidenceTtlSeconds * 1000);
  }

  private async checkStillValid(evidence: StoredEvidence): Promise<void> {
    if (evidence.acceptedAt.getTime() <= this.expiryCutoff().getTime()) throw OperatorErrors.expired();
    const lookup = await readMachineContext(this.chain, parseMachineId(evidence.machineId)!, this.config.namespace.didMethod);
    if (lookup.kind === "chainUnavailable") throw VerifyErrors.chainUnavailable();
    const unchanged =
      lookup.kind === "ok" &&
      lookup.context.didController.toLowerCase() === evidence.challenge.didController.toLowerCase() &&
      lookup.context.chainId === evidence.challenge.chainId;
    if (!unchanged) throw OperatorErrors.contextChanged();
  }

  private async chainRead<T>(read: () => Promise<T>): Promise<T> {
    try {
      return await read();
    } catch (error) {
      if (error instanceof ChainUnavailableError) throw VerifyErrors.chainUnavailable();
      throw error;
    }
  }
}
