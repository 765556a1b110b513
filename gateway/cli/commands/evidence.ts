/**
 * `evidence`: the integrator's client kit and the operator's attestation step.
 *   evidence --challenge <file> (--machine <id> | --cert <pem> --chip-key <pem> --controller-key <hex>)
 *       builds the canonical evidence file for a challenge and prints it to stdout, byte for byte (no newline)
 *   evidence pending          lists accepted evidence awaiting a chip attestation
 *   evidence attest --receipt <id> [--expires <unix> | --ttl <seconds>]
 *       records the chip attestation on chain for one accepted evidence and marks it attested
 */
import { readFile } from "node:fs/promises";
import type { ChipChallenge } from "../../../subgraphs/verify/evidence/schema.js";
import { CliError, parseOptions, parseUnsigned, printList, printResult, progress, required, UsageError, type CliCommandGroup } from "../command.js";

// Each subcommand imports what it uses when it runs: building evidence needs the kit (X.509, both curves), listing
// needs only the operator API, attesting needs ethers and the contracts.

const BUILD_USAGE = `Usage: cli evidence --challenge <file> --machine <id>
       cli evidence --challenge <file> --cert <leaf.pem> --chip-key <pkcs8.pem> --controller-key <0x hex | file>

Builds the canonical (RFC 8785) evidence file answering a challenge and prints it to stdout byte for byte, with no
trailing newline, ready to POST to /v1/verify/chip/evidence. --challenge is the 201 body of the challenge route.
--machine takes the chip certificate, chip key and effective controller key from the demo fixture in DATA_DIR.`;

const PENDING_USAGE = `Usage: cli evidence pending [--limit <n>] [--table]

Lists accepted chip evidence awaiting an on-chain chip attestation, one JSON line each (oldest first); [] when there
is none. --table: aligned columns with a header instead ("(none)" when empty).
Talks to the running platform: GRAPHQL_URL (default http://HOST:GRAPHQL_PORT/graphql), OPERATOR_TOKEN.`;

const ATTEST_USAGE = `Usage: cli evidence attest --receipt <receiptId> [--expires <unix> | --ttl <seconds>]

Records the chip attestation for one accepted evidence in the AttestationRegistry (chipRef and evidenceHash taken
from the evidence; signed by OPERATOR_PRIVATE_KEY or the dev deployer), then marks the evidence attested. The read
route then shows the machine's chip as verified. Prints {"receiptId","machineId","uid","txHash"}.
Refused before anything is sent when the evidence expired (VERIFY_EVIDENCE_TTL_SECONDS) or the machine is no longer
active with the DID controller and chain its challenge bound.`;

const USAGE = `${BUILD_USAGE}\n\n${PENDING_USAGE}\n\n${ATTEST_USAGE}`;

async function readChallenge(file: string): Promise<ChipChallenge> {
  const { validateChallengeShape } = await import("../../../subgraphs/verify/evidence/schema.js");
  let value: unknown;
  try {
    value = JSON.parse(await readFile(file, "utf8"));
  } catch (error) {
    throw new CliError(`cannot read the challenge file: ${(error as Error).message}`);
  }
  const shape = validateChallengeShape(value);
  if (!shape.ok) throw new CliError(`the challenge file is not a challenge: ${shape.reason}`);
  return value as ChipChallenge;
}

async function keyMaterial(value: string): Promise<string> {
  return value.startsWith("0x") ? value : (await readFile(value, "utf8")).trim();
}

async function build(args: string[]): Promise<void> {
  const opts = parseOptions(
    args,
    {
      challenge: { type: "string" },
      machine: { type: "string" },
      cert: { type: "string" },
      "chip-key": { type: "string" },
      "controller-key": { type: "string" },
    },
    BUILD_USAGE,
  );
  if (!opts) return;
  const challenge = await readChallenge(required(opts.challenge, "--challenge", BUILD_USAGE));
  let input: { leafCertPem: string; chipPrivateKeyPem: string; controllerPrivateKey: string };
  if (opts.machine !== undefined) {
    if (opts.cert || opts["chip-key"] || opts["controller-key"]) {
      throw new UsageError(`use --machine or the three key options, not both\n\n${BUILD_USAGE}`);
    }
    const { loadConfig } = await import("../../../subgraphs/shared/config.js");
    const { readDemoFixture } = await import("../../../subgraphs/shared/chain/demo-fixture.js");
    const config = loadConfig();
    const machine = readDemoFixture(config.dataDir)?.machines.find((m) => m.machineId === opts.machine);
    if (!machine) throw new CliError(`machine ${opts.machine} is not in the demo fixture of ${config.dataDir}`);
    input = {
      leafCertPem: machine.chip.leafCertPem,
      chipPrivateKeyPem: machine.chip.privateKeyPem,
      controllerPrivateKey: machine.controllerPrivateKey,
    };
  } else {
    input = {
      leafCertPem: await readFile(required(opts.cert, "--cert", BUILD_USAGE), "utf8"),
      chipPrivateKeyPem: await readFile(required(opts["chip-key"], "--chip-key", BUILD_USAGE), "utf8"),
      controllerPrivateKey: await keyMaterial(required(opts["controller-key"], "--controller-key", BUILD_USAGE)),
    };
  }
  const { buildEvidence, EvidenceKitError } = await import("../../../subgraphs/verify/evidence/kit.js");
  try {
    process.stdout.write(buildEvidence({ challenge, ...input }));
  } catch (error) {
    if (error instanceof EvidenceKitError) throw new CliError(error.message);
    throw error;
  }
}

async function pending(args: string[]): Promise<void> {
  const opts = parseOptions(args, { limit: { type: "string" }, table: { type: "boolean" } }, PENDING_USAGE);
  if (!opts) return;
  const limit = opts.limit === undefined ? 50 : Number(parseUnsigned(opts.limit, "--limit", PENDING_USAGE));
  const { OperatorApi } = await import("../operator-api.js");
  printList(await new OperatorApi().pending(limit), opts.table);
}

async function attest(args: string[]): Promise<void> {
  const opts = parseOptions(args, { receipt: { type: "string" }, expires: { type: "string" }, ttl: { type: "string" } }, ATTEST_USAGE);
  if (!opts) return;
  const receiptId = required(opts.receipt, "--receipt", ATTEST_USAGE);
  if (opts.expires !== undefined && opts.ttl !== undefined) throw new UsageError(`use --expires or --ttl, not both\n\n${ATTEST_USAGE}`);
  const [{ OperatorApi }, { transact, withChain }, { chipAttestedUid }] = await Promise.all([
    import("../operator-api.js"),
    import("../chain-context.js"),
    import("./attest.js"),
  ]);
  const api = new OperatorApi();
  const record = await api.attestable(receiptId);
  await withChain(async (chain) => {
    let expiry = 0n;
    if (opts.expires !== undefined) expiry = parseUnsigned(opts.expires, "--expires", ATTEST_USAGE);
    if (opts.ttl !== undefined) expiry = BigInt(await chain.latestTimestamp()) + parseUnsigned(opts.ttl, "--ttl", ATTEST_USAGE);
    const registry = chain.contract("AttestationRegistry", chain.adminSigner());
    const receipt = await transact(
      "attest chip",
      registry.attestChip(BigInt(record.machineId), record.chipRef, record.evidenceHash, expiry),
    );
    const uid = chipAttestedUid(chain, receipt);
    progress(`recording attestation ${uid} for receipt ${receiptId}`);
    try {
      await api.recordAttestation(receiptId, uid);
    } catch (error) {
      if (!(error instanceof CliError)) throw error;
      throw new CliError(`${error.message}; attestation ${uid} is on chain but not recorded: revoke it with \`cli revoke --uid ${uid}\``);
    }
    printResult({ receiptId, machineId: record.machineId, uid, txHash: receipt.hash });
  });
}

export const evidenceCommand: CliCommandGroup = {
  usage: USAGE,
  async run(args) {
    const [first, ...rest] = args;
    if (first === "pending") return pending(rest);
    if (first === "attest") return attest(rest);
    if (first === "--help" || first === "-h") {
      process.stdout.write(`${USAGE}\n`);
      return;
    }
    return build(args);
  },
};
