/**
 * `attest chip|kyb`: record an attestation in the AttestationRegistry (attester key), printing its uid.
 */
import { createHash } from "node:crypto";
import { getAddress, ZeroHash, type ContractTransactionReceipt } from "ethers";
import {
  CliError,
  parseBytes32,
  parseMachineId,
  parseOptions,
  parseUnsigned,
  printResult,
  required,
  UsageError,
  type CliCommandGroup,
} from "../command.js";
import { transact, withChain, type CliChain } from "../chain-context.js";

const EXPIRY_HELP = `  --expires <unix>   expiry as Unix seconds (a past time records an already expired attestation)
  --ttl <seconds>    expiry relative to the latest block's timestamp
  (neither: the attestation never expires)`;

const CHIP_USAGE = `Usage: cli attest chip --machine <id> [--chip-ref 0x<64 hex>] [--evidence-hash 0x<64 hex>] [--expires <unix> | --ttl <seconds>]

Records a chip attestation for the machine. Signed by the attester: OPERATOR_PRIVATE_KEY, or the dev deployer.
--chip-ref defaults to the SHA-256 of the demo chip certificate for demo machines (zero otherwise);
--evidence-hash defaults to zero.
${EXPIRY_HELP}
Prints {"uid","machineId","expiresAt","txHash"}.`;

const KYB_USAGE = `Usage: cli attest kyb --operator <0x..> [--kyb-ref 0x<64 hex>] [--expires <unix> | --ttl <seconds>]

Records a KYB attestation for the operator address. Signed like "attest chip". --kyb-ref defaults to zero.
${EXPIRY_HELP}
Prints {"uid","operator","expiresAt","txHash"}.`;

const EXPIRY_OPTIONS = { expires: { type: "string" }, ttl: { type: "string" } } as const;

async function expiresAt(chain: CliChain, opts: { expires?: string; ttl?: string }, usage: string): Promise<bigint> {
  if (opts.expires !== undefined && opts.ttl !== undefined) throw new UsageError(`use --expires or --ttl, not both\n\n${usage}`);
  if (opts.expires !== undefined) return parseUnsigned(opts.expires, "--expires", usage);
  if (opts.ttl !== undefined) return BigInt(await chain.latestTimestamp()) + parseUnsigned(opts.ttl, "--ttl", usage);
  return 0n;
}

function demoChipRef(chain: CliChain, machineId: bigint): string {
  const pem = chain.demoMachine(machineId)?.chip.leafCertPem;
  if (!pem) return ZeroHash;
  const der = Buffer.from(pem.replace(/-----[A-Z ]+-----|\s/g, ""), "base64");
  return `0x${createHash("sha256").update(der).digest("hex")}`;
}

/** The uid of the chip attestation a receipt recorded. */
export function chipAttestedUid(chain: CliChain, receipt: ContractTransactionReceipt): string {
  return uidFrom(chain, receipt, "ChipAttested");
}

function uidFrom(chain: CliChain, receipt: ContractTransactionReceipt, eventName: string): string {
  const iface = chain.contract("AttestationRegistry", chain.adminSigner()).interface;
  for (const log of receipt.logs) {
    const parsed = iface.parseLog(log);
    if (parsed?.name === eventName) return parsed.args.uid as string;
  }
  throw new CliError(`no ${eventName} event in the receipt`);
}

export const attestCommands: CliCommandGroup = {
  subcommands: [
    {
      name: "chip",
      summary: "attest a machine's chip",
      usage: CHIP_USAGE,
      async run(args) {
        const opts = parseOptions(
          args,
          { machine: { type: "string" }, "chip-ref": { type: "string" }, "evidence-hash": { type: "string" }, ...EXPIRY_OPTIONS },
          CHIP_USAGE,
        );
        if (!opts) return;
        const machineId = parseMachineId(required(opts.machine, "--machine", CHIP_USAGE), CHIP_USAGE);
        const evidenceHash = opts["evidence-hash"] ? parseBytes32(opts["evidence-hash"], "--evidence-hash", CHIP_USAGE) : ZeroHash;
        const explicitRef = opts["chip-ref"] ? parseBytes32(opts["chip-ref"], "--chip-ref", CHIP_USAGE) : undefined;
        await withChain(async (chain) => {
          const expiry = await expiresAt(chain, opts, CHIP_USAGE);
          const chipRef = explicitRef ?? demoChipRef(chain, machineId);
          const attestations = chain.contract("AttestationRegistry", chain.adminSigner());
          const receipt = await transact("attest chip", attestations.attestChip(machineId, chipRef, evidenceHash, expiry));
          printResult({ uid: chipAttestedUid(chain, receipt), machineId, expiresAt: expiry, txHash: receipt.hash });
        });
      },
    },
    {
      name: "kyb",
      summary: "attest an operator's KYB",
      usage: KYB_USAGE,
      async run(args) {
        const opts = parseOptions(args, { operator: { type: "string" }, "kyb-ref": { type: "string" }, ...EXPIRY_OPTIONS }, KYB_USAGE);
        if (!opts) return;
        let operator: string;
        try {
          operator = getAddress(required(opts.operator, "--operator", KYB_USAGE));
        } catch (error) {
          if (error instanceof UsageError) throw error;
          throw new UsageError(`--operator is not an EVM address\n\n${KYB_USAGE}`);
        }
        const kybRef = opts["kyb-ref"] ? parseBytes32(opts["kyb-ref"], "--kyb-ref", KYB_USAGE) : ZeroHash;
        await withChain(async (chain) => {
          const expiry = await expiresAt(chain, opts, KYB_USAGE);
          const attestations = chain.contract("AttestationRegistry", chain.adminSigner());
          const receipt = await transact("attest kyb", attestations.attestKyb(operator, kybRef, expiry));
          printResult({ uid: uidFrom(chain, receipt, "KybAttested"), operator, expiresAt: expiry, txHash: receipt.hash });
        });
      },
    },
  ],
};
