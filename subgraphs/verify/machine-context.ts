/**
 * The machine context a challenge binds: machine ID, DID, effective DID controller and home chain ID, rebuilt from
 * the chain at issuance and again at evidence intake.
 */
import type { ChainReads, MachineOnChain } from "../shared/chain/types.js";
import { ChainUnavailableError } from "../shared/errors.js";

export interface MachineContext {
  machineId: string;
  machineDid: string;
  didController: string;
  chainId: string;
}

export type ContextLookup =
  | { kind: "ok"; context: MachineContext; machine: MachineOnChain }
  | { kind: "notFound" }
  | { kind: "deactivated" }
  | { kind: "chainUnavailable" };

/**
 * Reads at the node's current head, not the block watcher's last poll: a controller change or deactivation mined a
 * moment ago must already count (document 1: the challenge's controller must still be the controller at submission).
 */
export async function readMachineContext(chain: ChainReads, machineId: bigint, didMethod: string): Promise<ContextLookup> {
  try {
    await chain.syncHead();
    const [machine, chainId] = await Promise.all([chain.getMachine(machineId), chain.chainId()]);
    if (!machine) return { kind: "notFound" };
    if (machine.deactivated) return { kind: "deactivated" };
    // The DID controller and chain of a machine homed elsewhere cannot be read from the primary chain.
    if (machine.home.kind !== "evm" || machine.home.chainId !== chainId) return { kind: "chainUnavailable" };
    const id = machineId.toString();
    return {
      kind: "ok",
      machine,
      context: { machineId: id, machineDid: `did:${didMethod}:${id}`, didController: machine.effectiveController, chainId },
    };
  } catch (error) {
    if (error instanceof ChainUnavailableError) return { kind: "chainUnavailable" };
    throw error;
  }
}
