/**
 * `identity sign`: the `identityProof` of a markets machine binding: signs a machine identity challenge's `message`
 * (EIP-191) with a controller key and prints `{"challengeId","signature"}`. Nothing is sent anywhere.
 * `identity session`: the machine's authority for its writes: a challenge of the machine's identityRef signed with a
 * controller key opens a machine session; prints its `sessionToken` (send it as `Authorization: Bearer`).
 */
import { readFileSync } from "node:fs";
import { Wallet } from "ethers";
import { loadConfig } from "../../../subgraphs/shared/config.js";
import { readDemoFixture } from "../../../subgraphs/shared/chain/demo-fixture.js";
import { CliError, parseOptions, printResult, required, type CliCommandGroup } from "../command.js";
import { openMachineSession } from "../machine-session.js";

const USAGE = `Usage: cli identity sign --challenge <file> [--key <private key>]

--challenge: the answer of POST /api/v1/machine-identity/challenges ({"item":{...}} or the item), "-" for stdin.
--key: a controller key of the identity (default: the demo fixture's controller key of that machine).
Prints {"challengeId","signature"}: the identityProof member of POST /api/v1/machines or PATCH /machines/<id>.`;

const SESSION_USAGE = `Usage: cli identity session --machine <mach_…> [--key <private key>] [--api http://127.0.0.1:<MARKETS_PORT>]

Opens a machine session (POST /api/v1/machine-identity/sessions) with a challenge of the machine's identityRef signed by
--key (default: MACHINE_CONTROLLER_PRIVATE_KEY, else the demo fixture's controller of that machine).
Prints {"sessionId","machineId","controllerAddress","sessionToken","issuedAt","expiresAt"}.`;

export const identityCommands: CliCommandGroup = {
  subcommands: [
    {
      name: "session",
      summary: "open a machine session (the machine's authority for its writes)",
      usage: SESSION_USAGE,
      async run(args) {
        const opts = parseOptions(args, { machine: { type: "string" }, key: { type: "string" }, api: { type: "string" } }, SESSION_USAGE);
        if (!opts) return;
        const config = loadConfig();
        const api = opts.api ?? `http://${config.host}:${config.marketsPort}`;
        printResult({ ...(await openMachineSession(api, required(opts.machine, "--machine", SESSION_USAGE), opts.key)) });
      },
    },
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
