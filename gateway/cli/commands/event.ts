/**
 * `event submit`: submit a revenue or activity event to the EventRegistry.
 */
import { keccak256, toUtf8Bytes, ZeroHash, isHexString } from "ethers";
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
import { transact, withChain } from "../chain-context.js";

const USAGE = `Usage: cli event submit --machine <id> --type revenue|activity --value <n> [options]

  --currency <CODE>        revenue currency, 3-10 uppercase letters/digits (default USD); activity has none
  --timestamp <unix>       when it happened (default: the latest block's timestamp)
  --data-hash <0x..32>     keccak256 of the off-chain raw data (default: keccak256 of the event's fields)
  --trust-level <0|1|2>    default 0
  --source-chain-id <n>    default 0 (off-chain)
  --source-tx-hash <0x..32> default zero
  --metadata <0x..>        default empty
  --key <private key>      signer: machine or operator key (default: the demo operator key, else the admin key)

Prints {"machineId","index","txHash"}.`;

const EVENT_TYPES = { revenue: 0, activity: 1 } as const;

export const eventCommands: CliCommandGroup = {
  subcommands: [
    {
      name: "submit",
      summary: "submit a revenue or activity event",
      usage: USAGE,
      async run(args) {
        const opts = parseOptions(
          args,
          {
            machine: { type: "string" },
            type: { type: "string" },
            value: { type: "string" },
            currency: { type: "string" },
            timestamp: { type: "string" },
            "data-hash": { type: "string" },
            "trust-level": { type: "string" },
            "source-chain-id": { type: "string" },
            "source-tx-hash": { type: "string" },
            metadata: { type: "string" },
            key: { type: "string" },
          },
          USAGE,
        );
        if (!opts) return;
        const machineId = parseMachineId(required(opts.machine, "--machine", USAGE), USAGE);
        const typeName = required(opts.type, "--type", USAGE);
        if (!(typeName in EVENT_TYPES)) throw new UsageError(`--type must be revenue or activity\n\n${USAGE}`);
        const eventType = EVENT_TYPES[typeName as keyof typeof EVENT_TYPES];
        const value = parseUnsigned(required(opts.value, "--value", USAGE), "--value", USAGE);
        const currency = opts.currency ?? (eventType === EVENT_TYPES.revenue ? "USD" : "");
        const trustLevel = Number(parseUnsigned(opts["trust-level"] ?? "0", "--trust-level", USAGE));
        const sourceChainId = parseUnsigned(opts["source-chain-id"] ?? "0", "--source-chain-id", USAGE);
        const sourceTxHash = opts["source-tx-hash"]
          ? parseBytes32(opts["source-tx-hash"], "--source-tx-hash", USAGE)
          : ZeroHash;
        const metadata = opts.metadata ?? "0x";
        if (!isHexString(metadata)) throw new UsageError(`--metadata must be 0x-prefixed hex\n\n${USAGE}`);

        await withChain(async (chain) => {
          const key = opts.key ?? chain.demoMachine(machineId)?.operatorPrivateKey;
          const signer = key ? chain.wallet(key) : chain.adminSigner();
          const timestamp = opts.timestamp
            ? parseUnsigned(opts.timestamp, "--timestamp", USAGE)
            : BigInt(await chain.latestTimestamp());
          const dataHash = opts["data-hash"]
            ? parseBytes32(opts["data-hash"], "--data-hash", USAGE)
            : keccak256(toUtf8Bytes(JSON.stringify([machineId.toString(), typeName, value.toString(), currency, timestamp.toString()])));
          const events = chain.contract("EventRegistry", signer);
          const receipt = await transact(
            "event submit",
            events.submitEvent(machineId, eventType, value, currency, timestamp, dataHash, trustLevel, sourceChainId, sourceTxHash, metadata),
          );
          const submitted = receipt.logs.map((log) => events.interface.parseLog(log)).find((e) => e?.name === "EventSubmitted");
          if (!submitted) throw new CliError("no EventSubmitted event in the receipt");
          printResult({ machineId, index: submitted.args.index as bigint, txHash: receipt.hash });
        });
      },
    },
  ],
};
