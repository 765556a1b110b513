/**
 * `controller set|clear`: change a machine's DID controller in the MachineRegistry, signed by the NFT owner.
 */
import { getAddress } from "ethers";
import { CliError, parseMachineId, parseOptions, printResult, required, UsageError, type CliCommandGroup } from "../command.js";
import { transact, withChain, type CliChain } from "../chain-context.js";

const SET_USAGE = `Usage: cli controller set --machine <id> --address <0x..> [--key <owner private key>]

Sets the machine's DID controller. Signed by the machine NFT owner: --key, or the demo fixture's owner key.
Prints {"machineId","controller","txHash"}.`;

const CLEAR_USAGE = `Usage: cli controller clear --machine <id> [--key <owner private key>]

Clears the controller, so the NFT owner is the effective controller again. Signed like "controller set".
Prints {"machineId","txHash"}.`;

function ownerSigner(chain: CliChain, machineId: bigint, key: string | undefined) {
  const ownerKey = key ?? chain.demoMachine(machineId)?.ownerPrivateKey;
  if (!ownerKey) throw new CliError(`machine ${machineId} is not a demo machine: pass the NFT owner's --key`);
  return chain.wallet(ownerKey);
}

export const controllerCommands: CliCommandGroup = {
  subcommands: [
    {
      name: "set",
      summary: "set the controller",
      usage: SET_USAGE,
      async run(args) {
        const opts = parseOptions(args, { machine: { type: "string" }, address: { type: "string" }, key: { type: "string" } }, SET_USAGE);
        if (!opts) return;
        const machineId = parseMachineId(required(opts.machine, "--machine", SET_USAGE), SET_USAGE);
        let controller: string;
        try {
          controller = getAddress(required(opts.address, "--address", SET_USAGE));
        } catch (error) {
          if (error instanceof UsageError) throw error;
          throw new UsageError(`--address is not an EVM address\n\n${SET_USAGE}`);
        }
        await withChain(async (chain) => {
          const registry = chain.contract("MachineRegistry", ownerSigner(chain, machineId, opts.key));
          const receipt = await transact("controller set", registry.setController(machineId, controller));
          printResult({ machineId, controller, txHash: receipt.hash });
        });
      },
    },
    {
      name: "clear",
      summary: "clear the controller",
      usage: CLEAR_USAGE,
      async run(args) {
        const opts = parseOptions(args, { machine: { type: "string" }, key: { type: "string" } }, CLEAR_USAGE);
        if (!opts) return;
        const machineId = parseMachineId(required(opts.machine, "--machine", CLEAR_USAGE), CLEAR_USAGE);
        await withChain(async (chain) => {
          const registry = chain.contract("MachineRegistry", ownerSigner(chain, machineId, opts.key));
          const receipt = await transact("controller clear", registry.clearController(machineId));
          printResult({ machineId, txHash: receipt.hash });
        });
      },
    },
  ],
};
