/**
 * `revoke`: revoke an attestation by uid (attester key).
 */
import { parseBytes32, parseOptions, printResult, required, type CliCommandGroup } from "../command.js";
import { transact, withChain } from "../chain-context.js";

const USAGE = `Usage: cli revoke --uid <0x<64 hex>>

Revokes a chip or KYB attestation. Signed by the attester: OPERATOR_PRIVATE_KEY, or the dev deployer.
Prints {"uid","txHash"}.`;

export const revokeCommand: CliCommandGroup = {
  usage: USAGE,
  async run(args) {
    const opts = parseOptions(args, { uid: { type: "string" } }, USAGE);
    if (!opts) return;
    const uid = parseBytes32(required(opts.uid, "--uid", USAGE), "--uid", USAGE);
    await withChain(async (chain) => {
      const attestations = chain.contract("AttestationRegistry", chain.adminSigner());
      const receipt = await transact("revoke", attestations.revoke(uid));
      printResult({ uid, txHash: receipt.hash });
    });
  },
};
