/**
 * The canonical monetization message (docs/monetization.md), for the server and for clients: six LF-separated lines,
 * no trailing newline, signed with EIP-191 `personal_sign`.
 *
 *   <namespace> monetization decision v1
 *   registry: <registry address, lowercase>
 *   chain_id: <decimal chain ID>
 *   machine_id: <decimal machine ID, resolved even when the URL key is a DID>
 *   opted_in: <true|false>
 *   timestamp: <Unix seconds>
 *
 * The registry is the 1.0 deployment's IdentityRegistry or the 2.0 deployment's MachineRegistry, so a signature binds
 * to one deployment on one chain.
 */
import type { Signer } from "ethers";

export const MONETIZATION_MESSAGE_TEMPLATE = [
  "{namespace} monetization decision v1",
  "registry: {registry}",
  "chain_id: {chain_id}",
  "machine_id: {machine_id}",
  "opted_in: {opted_in}",
  "timestamp: {timestamp}",
].join("\n");

export interface MonetizationMessageFields {
  /** SERVICE_NAMESPACE (the DID method), e.g. `service`. */
  namespace: string;
  registry: string;
  chainId: string | number | bigint;
  machineId: string | number | bigint;
  optedIn: boolean;
  timestamp: number;
}

export function buildMonetizationMessage(fields: MonetizationMessageFields): string {
  const values: Record<string, string> = {
    namespace: fields.namespace,
    registry: fields.registry.toLowerCase(),
    chain_id: BigInt(fields.chainId).toString(),
    machine_id: BigInt(fields.machineId).toString(),
    opted_in: fields.optedIn ? "true" : "false",
    timestamp: String(fields.timestamp),
  };
  return MONETIZATION_MESSAGE_TEMPLATE.replace(/\{(\w+)\}/g, (_, name: string) => values[name]!);
}

/** The PUT body for a decision, signed by `signer` (owner, operator or delegated submitter). */
export async function signMonetizationDecision(
  signer: Signer,
  fields: MonetizationMessageFields,
): Promise<{ opted_in: boolean; timestamp: number; signature: string }> {
  const signature = await signer.signMessage(buildMonetizationMessage(fields));
  return { opted_in: fields.optedIn, timestamp: fields.timestamp, signature };
}
