/**
 * Pairing proofs (Authentication 2): `{challengeId, signature}`, the challenge's message signed (EIP-191) by the
 * agent's address. The checks that need no database run at once; `consume(tx, did)` runs the rest inside the write
 * that uses the proof: the challenge exists, is unused, for this machine, address and DID (else
 * AGENT_PAIRING_PROOF_INVALID), not expired (AGENT_PAIRING_PROOF_EXPIRED), signed by the address (INVALID), and is
 * marked used by exactly this transaction. With verification off no proof is needed and none is recorded; a proof
 * sent anyway is still checked.
 */
import type { MarketsTx } from "../common/audit.repository.js";
import { MarketsErrors } from "../common/errors.js";
import { recoverSigner } from "../machines/identity/identity.resolution.js";
import type { AgentProofInput } from "./pairing.type.js";

const CHALLENGE_ID = /^apc_[0-9a-f]{24}$/;

/** The pairing's `verification` record (a JSON object as stored). */
export type PairingVerification = { method: "eip191"; signerAddress: string; verifiedAt: string; challengeExpiresAt: string } & Record<string, string>;

export interface PendingProof {
  consume(tx: MarketsTx, did: string | null): Promise<PairingVerification | null>;
}

export function pairingProof(
  mode: "required" | "off",
  proof: AgentProofInput | null | undefined,
  machineId: string,
  address: string,
  now: Date,
): PendingProof {
  if (proof === null || proof === undefined) {
    if (mode === "required") throw MarketsErrors.pairingProofRequired();
    return { consume: async () => null };
  }
  if (!CHALLENGE_ID.test(proof.challengeId)) throw MarketsErrors.pairingProofInvalid();
  return {
    async consume(tx, did) {
      const challenge = await tx.marketPairingChallenge.findUnique({ where: { id: proof.challengeId } });
      if (!challenge || challenge.consumedAt !== null || challenge.machineId !== machineId || challenge.agentAddress !== address || challenge.agentDid !== did) {
        throw MarketsErrors.pairingProofInvalid();
      }
      if (now.getTime() >= challenge.expiresAt.getTime()) throw MarketsErrors.pairingProofExpired();
      if (recoverSigner(challenge.message, proof.signature) !== address) throw MarketsErrors.pairingProofInvalid();
      const { count } = await tx.marketPairingChallenge.updateMany({ where: { id: challenge.id, consumedAt: null }, data: { consumedAt: now } });
      if (count !== 1) throw MarketsErrors.pairingProofInvalid();
      return { method: "eip191", signerAddress: address, verifiedAt: now.toISOString(), challengeExpiresAt: challenge.expiresAt.toISOString() };
    },
  };
}
