/**
 * Operator CLI: `npm run cli -- <command> [subcommand] [--options]`, `--help` at every level.
 *
 * Results go to stdout as one JSON line, progress to stderr. Exit codes: 0 ok, 1 the action failed, 2 usage error.
 * To add a command group, write a module exporting a `CliCommandGroup` and list it in COMMANDS with a loader.
 */
import { fileURLToPath } from "node:url";
import path from "node:path";
import { StepError, UsageError, type CliCommandEntry, type CliCommandGroup } from "./command.js";

/** In `cli --help` order. Each group's module is imported only when its command runs. */
export const COMMANDS: CliCommandEntry[] = [
  {
    name: "controller",
    summary: "set or clear a machine's DID controller (signed by the NFT owner)",
    load: async () => (await import("./commands/controller.js")).controllerCommands,
  },
  { name: "deactivate", summary: "deactivate a machine (admin)", load: async () => (await import("./commands/deactivate.js")).deactivateCommand },
  { name: "attest", summary: "record a chip or KYB attestation (attester)", load: async () => (await import("./commands/attest.js")).attestCommands },
  { name: "revoke", summary: "revoke an attestation (attester)", load: async () => (await import("./commands/revoke.js")).revokeCommand },
  { name: "event", summary: "submit machine events", load: async () => (await import("./commands/event.js")).eventCommands },
  {
    name: "evidence",
    summary: "build evidence for a challenge; list and attest accepted evidence (operator)",
    load: async () => (await import("./commands/evidence.js")).evidenceCommand,
  },
  {
    name: "monetization",
    summary: "sign a monetization opt-in or opt-out (the PUT body)",
    load: async () => (await import("./commands/monetization.js")).monetizationCommands,
  },
  {
    name: "identity",
    summary: "sign a machine identity challenge (the markets identityProof), or open a machine session",
    load: async () => (await import("./commands/identity.js")).identityCommands,
  },
  {
    name: "agent",
    summary: "run a machine-side runtime agent against the markets API",
    load: async () => (await import("./commands/market/agent.js")).agentCommands,
  },
  {
    name: "market",
    summary: "an AI agent on the markets API: pair, search, order, pay, execute, confirm (or demo)",
    load: async () => (await import("./commands/market/index.js")).marketCommands,
  },
  {
    name: "stream",
    summary: "stream marketplace: publish a dataset, verify and buy a listing, serve as the seller's agent",
    load: async () => (await import("./commands/stream/index.js")).streamCommands,
  },
  { name: "demo", summary: "print the demo fixture", load: async () => (await import("./commands/demo.js")).demoCommand },
];

function topUsage(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  const lines = COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`);
  return `Usage: cli <command> [--help]

Commands:
${lines.join("\n")}

Environment: DATA_DIR (default .data), CHAIN_RPC_URL (default: the embedded chain in <DATA_DIR>/demo.json),
<CONTRACT>_ADDRESS, OPERATOR_PRIVATE_KEY (admin/attester; dev default: anvil account 0).`;
}

function groupUsage(name: string, group: CliCommandGroup): string {
  const subcommands = group.subcommands ?? [];
  const width = Math.max(...subcommands.map((s) => s.name.length));
  const lines = subcommands.map((s) => `  ${s.name.padEnd(width)}  ${s.summary}`);
  return `Usage: cli ${name} <subcommand> [--help]\n\nSubcommands:\n${lines.join("\n")}`;
}

const isHelp = (arg: string | undefined) => arg === "--help" || arg === "-h" || arg === "help";

export async function runCli(argv: string[]): Promise<void> {
  const [name, ...rest] = argv;
  if (name === undefined || isHelp(name)) {
    process.stdout.write(`${topUsage()}\n`);
    if (name === undefined) throw new UsageError("missing command");
    return;
  }
  const entry = COMMANDS.find((c) => c.name === name);
  if (!entry) throw new UsageError(`unknown command "${name}"\n\n${topUsage()}`);
  const group = await entry.load();
  if (group.run) return group.run(rest);

  const [subName, ...args] = rest;
  if (subName === undefined || isHelp(subName)) {
    process.stdout.write(`${groupUsage(name, group)}\n`);
    if (subName === undefined) throw new UsageError(`missing subcommand for "${name}"`);
    return;
  }
  const subcommand = group.subcommands?.find((s) => s.name === subName);
  if (!subcommand) throw new UsageError(`unknown subcommand "${name} ${subName}"\n\n${groupUsage(name, group)}`);
  return subcommand.run(args);
}

async function main(): Promise<void> {
  try {
    await runCli(process.argv.slice(2));
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`error: ${error.message}\n`);
      process.exitCode = 2;
    } else if (error instanceof StepError) {
      process.stderr.write(`error: ${error.message}\n`);
      process.exitCode = 1;
    } else {
      process.stderr.write(`error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exitCode = 1;
    }
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
