/**
 * `deactivate`: administratively deactivate a machine in the MachineRegistry (admin key).
 */
import { parseMachineId, parseOptions, printResult, required, type CliCommandGroup } from "../command.js";
import { transact, withChain } from "../chain-context.js";

const USAGE = `Usage: cli deactivate --machine <id>

Deactivates the machine in the MachineRegistry. Signed by the admin: OPERATOR_PRIVATE_KEY, or the dev deployer.
Prints {"machineId","txHash"}.`;

export const deactivateCommand: CliCommandGroup = {
  usage: USAGE,
  async run(args) {
    const opts = parseOptions(args, { machine: { type: "string" } }, USAGE);
    if (!opts) return;
    const machineId = parseMachineId(required(opts.machine, "--machine", USAGE), USAGE);
    await withChain(async (chain) => {
      const registry = chain.contract("MachineRegistry", chain.adminSigner());
      const receipt = await transact("deactivate", registry.deactivate(machineId));
      printResult({ machineId, txHash: receipt.hash });
    });
  },
};
