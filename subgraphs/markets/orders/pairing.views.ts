/**
 * Agent pairing input rules and views: agentAddress / agentDid (the spec's rules), short texts, and the pairing
 * record as the API shows it (public notes 2.3; never the token itself, only at create and rotation).
 */
import { getAddress } from "ethers";
import type { MarketAgentPairing as PairingRow } from "../../shared/db/generated/client.js";
import { MarketsErrors } from "../common/errors.js";
import type { DelegationPolicy } from "./pairing.policy.js";
import type { AgentPairing, PairingVerification } from "./pairing.type.js";

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const DID = /^did:pkh:eip155:([1-9][0-9]{0,18}):(0x[0-9a-fA-F]{40})$/;

export function optionalText(value: string | null | undefined, max: number): string | null {
  if (value === null || value === undefined) return null;
  const trimmed = value.trim();
  if (trimmed.length === 0 || trimmed.length > max) throw MarketsErrors.validation();
  return trimmed;
}

/** The checksummed agentAddress and its agentDid by the spec's rules; VALIDATION_ERROR otherwise. */
export function agentIdentity(agentAddress: string, agentDid: string | null | undefined): { address: string; did: string } {
  if (!ADDRESS.test(agentAddress)) throw MarketsErrors.validation();
  let address: string;
  try {
    address = getAddress(agentAddress);
  } catch {
    throw MarketsErrors.validation();
  }
  if (agentDid === null || agentDid === undefined) return { address, did: `did:pkh:eip155:1:${address}` };
  const match = DID.exec(agentDid);
  if (!match || match[2] !== address) throw MarketsErrors.validation();
  return { address, did: agentDid };
}

export function pairingView(row: PairingRow, pairingToken?: string): AgentPairing {
  const iso = (d: Date | null) => d?.toISOString() ?? null;
  return {
    id: row.id,
    machineId: row.machineId,
    status: row.status,
    agentAddress: row.agentAddress,
    agentDid: row.agentDid,
    agentProvider: row.agentProvider,
    agentRole: row.agentRole,
    description: row.description,
    verification: (row.verification as PairingVerification | null) ?? null,
    delegationPolicy: row.delegationPolicy as unknown as DelegationPolicy,
    delegationPolicyHash: row.delegationPolicyHash,
    hasAuthToken: row.tokenHash !== null && row.status !== "revoked",
    tokenLastFour: row.tokenLastFour,
    sessionId: row.sessionId,
    sessionTokenId: row.sessionTokenId,
    sessionIssuedAt: iso(row.sessionIssuedAt),
    sessionExpiresAt: iso(row.sessionExpiresAt),
    ...(pairingToken === undefined ? {} : { pairingToken }),
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}
