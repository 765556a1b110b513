/**
 * Chip evidence (document 1, docs/verify-evidence.md): a fresh challenge for the machine, the evidence file built
 * around it with the integrator kit (subgraphs/verify/evidence/kit.ts: local keys, or two signer callbacks for a
 * secure element and a wallet), and its submission byte for byte. The onboarding token is the verify client's.
 */
import { buildEvidence, buildEvidenceWithSigners, type ChipSigner, type ControllerSigner } from "../../../../subgraphs/verify/evidence/kit.js";
import type { ChipChallenge } from "../../../../subgraphs/verify/evidence/schema.js";
import { ok, type VerifyClient } from "../clients.js";
import { report, type OnProgress } from "./progress.js";

export type ChipKeys =
  | { leafCertPem: string; chipPrivateKeyPem: string; controllerPrivateKey: string }
  | { leafCertificate: string | Uint8Array; signChip: ChipSigner; signController: ControllerSigner };

export interface SubmittedEvidence {
  challenge: ChipChallenge;
  evidence: string;
  receipt: Record<string, unknown>;
}

export async function submitChipEvidence(verify: VerifyClient, machineId: string, keys: ChipKeys, onProgress?: OnProgress): Promise<SubmittedEvidence> {
  const challenge = (await ok(verify.api.POST("/v1/verify/chip/challenge", { body: { machineId } }))) as unknown as ChipChallenge;
  report(onProgress, "challenge", { machineId });
  const evidence =
    "chipPrivateKeyPem" in keys ? buildEvidence({ challenge, ...keys }) : await buildEvidenceWithSigners({ challenge, ...keys });
  report(onProgress, "built", { bytes: Buffer.byteLength(evidence) });
  // The file goes byte for byte (the server checks its canonical form), not re-serialised.
  const receipt = await ok(verify.api.POST("/v1/verify/chip/evidence", { body: {} as Record<string, unknown>, bodySerializer: () => evidence }));
  report(onProgress, "submitted");
  return { challenge, evidence, receipt: receipt as Record<string, unknown> };
}
