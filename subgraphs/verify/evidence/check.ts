/**
 * The evidence checks (EVIDENCE_REJECTED layer). Input is an `EvidenceFile` that already passed the structural
 * layer (schema.ts), the stored challenge and the machine context rebuilt from the chain just now.
 *
 * Order: cheap comparisons first, then the chain (cached per leaf), then the two signatures. Every failure is a
 * reason string for logs and tests; it never reaches a client, and nothing here throws for bad input.
 */
import { verify } from "node:crypto";
import type { ChipVendorProfile, ServiceNamespace } from "../../shared/config.js";
import { fromBase64url, fromHex, sha256, toHex } from "./encoding.js";
import {
  CONTROLLER_PROOF_SCHEME,
  REVOCATION_STATUS,
  certificateFingerprint,
  chipPrehashInput,
  chipRef as deriveChipRef,
  controllerMessage,
  decodeChipSignature,
  decodeControllerSignature,
  eip191Digest,
  evidenceHash,
  evidenceProfile,
  machineDidFor,
  sameAddress,
  type EvidenceProfile,
} from "./format.js";
import { CHALLENGE_FIELDS, type ChipChallenge, type EvidenceFile } from "./schema.js";
import { recoverAddress } from "./recover.js";
import { validateChain, type TrustBundle } from "./trust.js";

/** The machine as the chain shows it at submission time. */
export interface CurrentMachineContext {
  machineId: string;
  machineDid: string;
  /** Effective DID controller (registry controller, else NFT owner), EIP-55. */
  effectiveController: string;
  chainId: string;
}

export interface EvidenceCheckContext {
  /** The nine challenge fields as issued. */
  challenge: ChipChallenge;
  machine: CurrentMachineContext;
  trust: TrustBundle;
  now: Date;
  /** From the platform config: every fixed identifier is derived from these two (format.ts `evidenceProfile`). */
  namespace: ServiceNamespace;
  vendor: ChipVendorProfile;
}

export type EvidenceCheckResult = { ok: true; chipRef: string; evidenceHash: string } | { ok: false; reason: string };

export async function checkEvidence(evidence: EvidenceFile, ctx: EvidenceCheckContext): Promise<EvidenceCheckResult> {
  try {
    const profile = evidenceProfile(ctx);
    const reason =
      fixedValueProblem(evidence, profile) ??
      transcriptProblem(evidence, ctx) ??
      machineContextProblem(ctx, profile.didMethod) ??
      (await certificateAndSignatureProblem(evidence, ctx));
    if (reason) return { ok: false, reason };
    // The hash re-canonicalises the whole file; intake already hashed the request bytes, so only compute on demand.
    let hash: string | undefined;
    return {
      ok: true,
      chipRef: evidence.chipRef,
      get evidenceHash() {
        return (hash ??= evidenceHash(evidence));
      },
    };
  } catch (error) {
    // Defensive: a library throwing on hostile input must still end as a rejection, not a 500.
    return { ok: false, reason: `unexpected: ${(error as Error).message}` };
  }
}

function fixedValueProblem(e: EvidenceFile, profile: EvidenceProfile): string | null {
  const expected: [string, string, string][] = [
    ["evidenceSchema", e.evidenceSchema, profile.evidenceSchema],
    ["profile", e.profile, profile.profile],
    ["trustBundle", e.trustBundle, profile.trustBundle],
    ["revocationStatus", e.revocationStatus, REVOCATION_STATUS],
    ["controllerProof.scheme", e.controllerProof.scheme, CONTROLLER_PROOF_SCHEME],
    ["transcript.profile", e.transcript.profile, profile.profile],
    ["transcript.protocol", e.transcript.protocol, profile.protocol],
    ["transcript.verifier", e.transcript.verifier, profile.verifier],
  ];
  for (const [member, actual, wanted] of expected) if (actual !== wanted) return `fixed value: ${member}`;
  return null;
}

function transcriptProblem(e: EvidenceFile, ctx: EvidenceCheckContext): string | null {
  for (const field of CHALLENGE_FIELDS) {
    if (e.transcript[field] !== ctx.challenge[field]) return `transcript: ${field} differs from the challenge`;
  }
  // The route answers an expired challenge with CHALLENGE_EXPIRED before calling this; this is the backstop.
  if (ctx.now.getTime() >= Number(ctx.challenge.expiresAt) * 1000) return "challenge: expired";
  return null;
}

function machineContextProblem({ challenge, machine }: EvidenceCheckContext, didMethod: string): string | null {
  if (challenge.machineId !== machine.machineId) return "machine: ID differs";
  if (challenge.machineDid !== machine.machineDid) return "machine: DID differs";
  if (challenge.machineDid !== machineDidFor(didMethod, challenge.machineId)) return "machine: DID not derived";
  if (challenge.chainId !== machine.chainId) return "machine: chain ID differs";
  if (!sameAddress(challenge.didController, machine.effectiveController)) return "machine: DID controller changed";
  return null;
}

async function certificateAndSignatureProblem(e: EvidenceFile, ctx: EvidenceCheckContext): Promise<string | null> {
  const leafDer = fromBase64url(e.certificate.leafDerBase64url)!; // lexically checked by the schema
  const fingerprint = certificateFingerprint(leafDer);
  if (e.certificate.fingerprintSha256 !== fingerprint) return "certificate: fingerprint mismatch";
  if (e.transcript.certificateFingerprintSha256 !== fingerprint) return "transcript: certificate fingerprint mismatch";

  const chain = await validateChain(leafDer, ctx.trust, ctx.now, fingerprint);
  if (!chain.ok) return chain.reason;
  const { publicKey } = chain.leaf;
  if (e.certificate.publicKey !== toHex(publicKey)) return "certificate: publicKey mismatch";
  const ref = deriveChipRef(e.transcript.protocol, publicKey);
  if (e.chipRef !== ref) return "chipRef mismatch";

  const chipSignature = fromHex(e.proof.chipSignature)!;
  if (!decodeChipSignature(chipSignature)) return "chip signature: not two minimal DER INTEGERs in range";
  const prehashInput = chipPrehashInput(e.transcript, ref);
  const prehash = sha256(prehashInput);
  // The chip signed prehash = SHA-256(prehashInput) without hashing again, which is exactly ECDSA-with-SHA-256 over
  // prehashInput: OpenSSL verifies that many times faster than pure JS. High s is allowed: chips do not normalise,
  // and the controller signature covers these exact bytes, so the evidence stays non-malleable. The two INTEGERs,
  // minimal and at most 35 bytes each, become the DER ECDSA-Sig-Value OpenSSL reads under a one-byte SEQUENCE header.
  const sigValue = new Uint8Array(2 + chipSignature.length);
  sigValue[0] = 0x30;
  sigValue[1] = chipSignature.length;
  sigValue.set(chipSignature, 2);
  const chipOk = verify("sha256", prehashInput, chain.leaf.key, sigValue);
  if (!chipOk) return "chip signature: invalid";

  const controller = decodeControllerSignature(fromHex(e.controllerProof.signature)!);
  if (!controller) return "controller signature: not r||s||v with v 27/28 and low s";
  const message = controllerMessage({ transcript: e.transcript, chipRef: ref, prehash, chipSignature });
  const recovered = recoverAddress(eip191Digest(message), controller);
  if (!recovered || !sameAddress(recovered, ctx.machine.effectiveController)) {
    return "controller signature: does not recover to the DID controller";
  }
  return null;
}
