/**
 * `monetization sign`: the signed body of `PUT /machine/{key}/monetization` (document 2, docs/monetization.md),
 * built with the client helper (subgraphs/ratings/monetization/monetization.message.ts). Nothing is sent anywhere.
 */
import { buildMonetizationMessage } from "../../../subgraphs/ratings/monetization/monetization.message.js";
import { CliError, parseMachineId, parseOptions, parseUnsigned, printResult, required, UsageError, type CliCommandGroup } from "../command.js";
import { withChain, type CliChain } from "../chain-context.js";

const USAGE = `Usage: cli monetization sign --machine <id> (--opt-in | --opt-out) [options]

  --deployment v1|v2   which deployment's registry the message names (default v1: the IdentityRegistry;
                       v2: the MachineRegistry); send the body to that deployment's listener
  --timestamp <unix>   signing time (default: now)
  --key <private key>  the signer: the machine's NFT owner, operator or a delegated event submitter
                       (default: the demo fixture's owner key of the machine)

Prints the PUT body {"opted_in","timestamp","signature"}: pipe it to
curl -X PUT localhost:8000/machine/<id>/monetization -H 'content-type: application/json' --data-binary @-`;

/** The demo owner key of a machine of the demo fixture (machines 1-6, the rated machines and the 2.0 machine). */
function demoOwnerKey(chain: CliChain, machineId: bigint): string | undefined {
  const id = machineId.toString();
  const ratings = chain.demo?.ratings;
  if (ratings && (ratings.machines.some((m) => m.machineId === id) || ratings.v2Machine.machineId === id)) {
    return ratings.fleetOwner.privateKey;
  }
  return chain.demoMachine(machineId)?.ownerPrivateKey;
}

export const monetizationCommands: CliCommandGroup = {
  subcommands: [
    {
      name: "sign",
      summary: "print a signed PUT body",
      usage: USAGE,
      async run(args) {
        const opts = parseOptions(
          args,
          {
            machine: { type: "string" },
            "opt-in": { type: "boolean" },
            "opt-out": { type: "boolean" },
            deployment: { type: "string" },
            timestamp: { type: "string" },
            key: { type: "string" },
          },
          USAGE,
        );
        if (!opts) return;
        const machineId = parseMachineId(required(opts.machine, "--machine", USAGE), USAGE);
        if (Boolean(opts["opt-in"]) === Boolean(opts["opt-out"])) throw new UsageError(`give exactly one of --opt-in and --opt-out\n\n${USAGE}`);
        const deployment = opts.deployment ?? "v1";
        if (deployment !== "v1" && deployment !== "v2") throw new UsageError(`--deployment is v1 or v2\n\n${USAGE}`);
        const timestamp = opts.timestamp ? Number(parseUnsigned(opts.timestamp, "--timestamp", USAGE)) : Math.floor(Date.now() / 1000);
        await withChain(async (chain) => {
          const key = opts.key ?? demoOwnerKey(chain, machineId);
          if (!key) throw new CliError(`machine ${machineId} is not a demo machine: pass the signer's --key`);
          const registry = chain.addresses[deployment === "v2" ? "MachineRegistry" : "IdentityRegistry"];
          if (!registry) throw new CliError(`no registry address for deployment ${deployment}`);
          const message = buildMonetizationMessage({
            namespace: chain.config.namespace.didMethod,
            registry,
            chainId: (await chain.provider.getNetwork()).chainId,
            machineId,
            optedIn: Boolean(opts["opt-in"]),
            timestamp,
          });
          const signature = await chain.wallet(key).signMessage(message);
          printResult({ opted_in: Boolean(opts["opt-in"]), timestamp, signature });
        });
      },
    },
  ],
};
