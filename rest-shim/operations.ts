/**
 * The named GraphQL operations behind the documented REST routes. Selection order is the JSON member order of the
 * REST body, so the shim can return `data.<field>` as is.
 */
import type { ShimOperation } from "./executor.js";

const op = (name: string, document: string): ShimOperation => ({ name, document });

export const OPERATIONS = {
  verifyMachine: op(
    "VerifyMachine",
    `query VerifyMachine($machineId: String!) {
  machineVerification(machineId: $machineId) {
    machineId machineDid
    homeChain { kind chainId }
    didController { kind address }
    operator { kind address }
    verification { kyb { status } chip { status } }
  }
}`,
  ),
  createChipChallenge: op(
    "CreateChipChallenge",
    `mutation CreateChipChallenge($machineId: String!) {
  createChipChallenge(machineId: $machineId) {
    chainId didController expiresAt machineDid machineId nonce profile protocol verifier
  }
}`,
  ),
  submitChipEvidence: op(
    "SubmitChipEvidence",
    `mutation SubmitChipEvidence($evidence: String!) {
  submitChipEvidence(evidence: $evidence) { receiptId status }
}`,
  ),
  health: op("Health", `query Health { health { status } }`),
  readiness: op(
    "Readiness",
    `query Readiness {
  readiness {
    status rpc_connected
    contracts { identity_registry identity_staking event_registry machine_nft did_registry admin_flags }
  }
}`,
  ),
} as const;
