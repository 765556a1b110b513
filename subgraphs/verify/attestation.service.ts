/**
 * The operator's side of chip verification: list accepted evidence awaiting attestation, and record that the chip
 * attestation is on chain. The service holds no chain key: the operator CLI sends the attestation transaction, and
 * this service only accepts an attestation UID that the registry shows for the same machine, chipRef and evidence.
 */
import type { ChainReads } from "../shared/chain/types.js";
import { ChainUnavailableError, DomainError } from "../shared/errors.js";
import type { ChipEvidenceRecord } from "./attestation.type.js";
import type { ChallengeRepository, PendingEvidence } from "./challenge.repository.js";
import { VerifyErrors } from "./errors.js";
import { inStore } from "./store.js";

const UID = /^0x[0-9a-fA-F]{64}$/;
const RECEIPT_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

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
    private readonly log: (error: unknown) => void,
  ) {}

  async pending(limit: number): Promise<ChipEvidenceRecord[]> {
    if (!Number.isInteger(limit) || limit < 1 || limit > 500) throw VerifyErrors.invalidRequest();
    const rows = await inStore(() => this.repository.pendingEvidence(limit), this.log);
    return rows.map(toRecord);
  }

  async record(receiptId: string, attestationUid: string): Promise<ChipEvidenceRecord> {
    if (!UID.test(attestationUid) || !RECEIPT_ID.test(receiptId)) throw VerifyErrors.invalidRequest();
    const evidence = await inStore(() => this.repository.findEvidence(receiptId), this.log);
    if (!evidence) throw new DomainError("RECEIPT_NOT_FOUND", "No accepted evidence with this receipt.");
    let attestation;
    try {
      attestation = await this.chain.getChipAttestation(attestationUid);
    } catch (error) {
      if (error instanceof ChainUnavailableError) throw VerifyErrors.chainUnavailable();
      throw error;
    }
    const matches =
      attestation !== null &&
      attestation.machineId.toString() === evidence.machineId &&
      attestation.chipRef.toLowerCase() === evidence.chipRef.toLowerCase() &&
      attestation.evidenceHash.toLowerCase() === evidence.evidenceHash.toLowerCase() &&
      !attestation.revoked;
    if (!matches) throw new DomainError("ATTESTATION_MISMATCH", "The registry holds no matching chip attestation.");
    const at = new Date();
    await inStore(() => this.repository.markAttested(receiptId, attestationUid.toLowerCase(), at), this.log);
    return toRecord({ ...evidence, attestedAt: evidence.attestedAt ?? at });
  }
}
