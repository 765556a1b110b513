/**
 * `identity sign`: the `identityProof` of document 3's machine binding: signs a machine identity challenge's
 * `message` (EIP-191) with a controller key and prints `{"challengeId","signature"}`. Nothing is sent anywhere.
 */
import { readFileSync } from "node:fs";
import { Wallet } from "ethers";
import { loadConfig } from "../../../subgraphs/shared/config.js";
import { readDemoFixture } from "../../../subgraphs/shared/chain/demo-fixture.js";
import { CliError, parseOptions, printResult, required, type CliCommandGroup } from "../command.js";

const USAGE = `Usage: cli identity sign --challenge <file> [--key <private key>]

--challenge: the answer of POST /api/v1/machine-identity/challenges ({"item":{...}} or the item), "-" for stdin.
--key: a controller key of the identity (default: the demo fixture's controller key of that machine).
Prints {"challengeId","signature"}: the identityProof member of POST /api/v1/machines or PATCH /machines/<id>.`;

export const identityCommands: CliCommandGroup = {
  subcommands: [
    {
      name: "sign",
      summary: "print an identityProof for a challenge",
      usage: USAGE,
      async run(args) {
        const opts = parseOptions(args, { challenge: { type: "string" }, key: { type: "string" } }, USAGE);
        if (!opts) return;
        const file = required(opts.challenge, "--challenge", USAGE);
        let challenge: { challengeId?: unknown; message?: unknown };
        try {
          const parsed = JSON.parse(readFileSync(file === "-" ? 0 : file, "utf8"));
          challenge = parsed.item ?? parsed;
        } catch {
          throw new CliError(`${file} is not a challenge answer (JSON)`);
        }
        if (typeof challenge.challengeId !== "string" || typeof challenge.message !== "string") throw new CliError(`${file} has no challengeId and message`);
        let key = opts.key;
        if (!key) {
          const machineId = /^Machine ID: (\d+)$/m.exec(challenge.message)?.[1];
          const demo = readDemoFixture(loadConfig().dataDir);
          key = demo?.machines.find((machine) => machine.machineId === machineId)?.controllerPrivateKey;
          if (!key) throw new CliError(`machine ${machineId ?? "?"} is not a demo machine: pass a controller's --key`);
        }
        const signature = await new Wallet(key).signMessage(challenge.message);
        printResult({ challengeId: challenge.challengeId, signature });
      },
    },
  ],
};
