/**
 * ethers Contract handles for the platform contracts, built from the committed artifacts.
 */
import { Contract, type ContractRunner } from "ethers";
import { CONTRACT_NAMES, type ContractName } from "../config.js";
import { contractInterface } from "./artifacts.js";

export function connectContract(
  name: ContractName,
  addresses: Partial<Record<ContractName, string>>,
  runner: ContractRunner,
): Contract {
  const address = addresses[name];
  if (!address) throw new Error(`no address configured for ${name}`);
  return new Contract(address, contractInterface(name), runner);
}

/** Names a platform contract's custom error from revert data (`NotMachineOwner()`), or null when unknown. */
export function decodeRevert(data: string): string | null {
  for (const name of CONTRACT_NAMES) {
    try {
      const parsed = contractInterface(name).parseError(data);
      if (parsed) return `${parsed.name}(${parsed.args.map(String).join(", ")})`;
    } catch {
      // Not this contract's error (or malformed data): try the next one.
    }
  }
  return null;
}
