/**
 * Operator CLI: `npm run cli -- <command> [subcommand] [--options]`, `--help` at every level.
 *
 * Results go to stdout as one JSON line, progress to stderr. Exit codes: 0 ok, 1 the action failed, 2 usage error.
 * To add a command group, write a module exporting a `CliCommandGroup` and list it in COMMANDS.
 */
import { fileURLToPath } from "node:url";
import path from "node:path";
import { CliError, UsageError, type CliCommandGroup } from "./command.js";
import { agentCommands } from "./commands/agent.js";
import { attestCommands } from "./commands/attest.js";
import { controllerCommands } from "./commands/controller.js";
import { deactivateCommand } from "./commands/deactivate.js";
import { demoCommand } from "./commands/demo.js";
import { eventCommands } from "./commands/event.js";
import { evidenceCommand } from "./commands/evidence.js";
import { identityCommands } from "./commands/identity.js";
import { marketCommands } from "./commands/market.js";
import { monetizationCommands } from "./commands/monetization.js";
import { revokeCommand } from "./commands/revoke.js";
import { streamCommands } from "./commands/stream.js";

export const COMMANDS: CliCommandGroup[] = [
  controllerCommands,
  deactivateCommand,
  attestCommands,
  revokeCommand,
  eventCommands,
  evidenceCommand,
  monetizationCommands,
  identityCommands,
  agentCommands,
  marketCommands,
  streamCommands,
  demoCommand,
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

function groupUsage(group: CliCommandGroup): string {
  const subcommands = group.subcommands ?? [];
  const width = Math.max(...subcommands.map((s) => s.name.length));
  const lines = subcommands.map((s) => `  ${s.name.padEnd(width)}  ${s.summary}`);
  return `Usage: cli ${group.name} <subcommand> [--help]\n\nSubcommands:\n${lines.join("\n")}`;
}

const isHelp = (arg: string | undefined) => arg === "--help" || arg === "-h" || arg === "help";

export async function runCli(argv: string[]): Promise<void> {
  const [name, ...rest] = argv;
  if (name === undefined || isHelp(name)) {
    process.stdout.write(`${topUsage()}\n`);
    if (name === undefined) throw new UsageError("missing command");
    return;
  }
  const group = COMMANDS.find((c) => c.name === name);
  if (!group) throw new UsageError(`unknown command "${name}"\n\n${topUsage()}`);
  if (group.run) return group.run(rest);

  const [subName, ...args] = rest;
  if (subName === undefined || isHelp(subName)) {
    process.stdout.write(`${groupUsage(group)}\n`);
    if (subName === undefined) throw new UsageError(`missing subcommand for "${name}"`);
    return;
  }
  const subcommand = group.subcommands?.find((s) => s.name === subName);
  if (!subcommand) throw new UsageError(`unknown subcommand "${name} ${subName}"\n\n${groupUsage(group)}`);
  return subcommand.run(args);
}

async function main(): Promise<void> {
  try {
    await runCli(process.argv.slice(2));
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`error: ${error.message}\n`);
      process.exitCode = 2;
    } else if (error instanceof CliError) {
      process.stderr.write(`error: ${error.message}\n`);
      process.exitCode = 1;
    } else {
      process.stderr.write(`error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exitCode = 1;
    }
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
