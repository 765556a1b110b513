/** Decoding the registry views the reader serves into the services' types. */
import { encodeBase58, type Result } from "ethers";
import type { AttestationStatus, HomeChain, MachineOnChain, ReadinessProbe } from "./types.js";

const ATTESTATION_STATUSES: readonly AttestationStatus[] = ["unverified", "verified", "expired", "revoked"];
const HOME_EVM = 0n;
const HOME_SOLANA = 1n;

/** Readiness with every check false (document 2: the services are not initialised without the registries). */
export const NOT_READY: ReadinessProbe = Object.freeze({
  rpc_connected: false,
  contracts: {
    identity_registry: false,
    identity_staking: false,
    event_registry: false,
    machine_nft: false,
    did_registry: false,
    admin_flags: false,
  },
});

export const bigintAsString = (_: string, value: unknown) => (typeof value === "bigint" ? value.toString() : value);

export function toStatus(code: unknown): AttestationStatus {
  const status = ATTESTATION_STATUSES[Number(code)];
  if (!status) throw new Error(`unknown attestation status ${String(code)}`);
  return status;
}

export function toMachine(machineId: bigint, view: Result): MachineOnChain | null {
  if (!view.exists) return null;
  let home: HomeChain;
  if (view.homeKind === HOME_EVM) home = { kind: "evm", chainId: (view.homeChainId as bigint).toString() };
  else if (view.homeKind === HOME_SOLANA) home = { kind: "solana", genesisHash: encodeBase58(view.homeGenesisHash) };
  else throw new Error(`unknown home chain kind ${String(view.homeKind)}`);
  const controller = view.controller as string;
  return Object.freeze({
    machineId,
    machineAddress: view.machineAddress as string,
    owner: view.owner as string,
    controller: /^0x0{40}$/.test(controller) ? null : controller,
    effectiveController: view.effectiveController as string,
    operator: view.operator as string,
    deactivated: view.deactivated as boolean,
    home: Object.freeze(home),
    tokenId: view.tokenId as bigint,
  });
}
