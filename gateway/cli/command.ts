/**
 * The operator CLI's building blocks: a command group is a module exporting a `CliCommandGroup`; main.ts lists them
 * by name and summary and loads only the module of the command being run (start-up stays under a second: ethers,
 * the evidence kit's X.509 code and the contract artifacts load only in the commands that use them).
 */
import { parseArgs, type ParseArgsConfig } from "node:util";
import { StepError } from "../../clients/typescript/src/errors.js";

export interface CliSubcommand {
  name: string;
  summary: string;
  /** Usage text printed for `--help` and after a usage error. */
  usage: string;
  run(args: string[]): Promise<void>;
}

export interface CliCommandGroup {
  /** A group either has subcommands (`attest chip`) or runs itself (`deactivate`). */
  subcommands?: CliSubcommand[];
  usage?: string;
  run?(args: string[]): Promise<void>;
}

/** A line of `cli --help`, and how to load the group it names (only when that command is run). */
export interface CliCommandEntry {
  name: string;
  summary: string;
  load(): Promise<CliCommandGroup>;
}

/** Wrong arguments: printed with the usage, exit code 2. */
export class UsageError extends Error {}

/**
 * An action that could not be completed (chain down, revert, missing key): exit code 1. The client package's stream
 * steps (clients/typescript/src/stream/) throw its base, StepError, which the CLI prints alike.
 */
export class CliError extends StepError {}

export { StepError };

export type OptionSpec = NonNullable<ParseArgsConfig["options"]>;

/** Parses `args` strictly; `--help` is always accepted. Returns null when help was requested (and printed). */
export function parseOptions<T extends OptionSpec>(
  args: string[],
  options: T,
  usage: string,
): { [K in keyof T]?: T[K]["type"] extends "boolean" ? boolean : string } | null {
  let values: Record<string, string | boolean | undefined>;
  try {
    const spec: OptionSpec = { ...options, help: { type: "boolean" } };
    values = parseArgs({ args, options: spec, strict: true, allowPositionals: false }).values as typeof values;
  } catch (error) {
    throw new UsageError(`${(error as Error).message}\n\n${usage}`);
  }
  if (values.help) {
    process.stdout.write(`${usage}\n`);
    return null;
  }
  return values as { [K in keyof T]?: T[K]["type"] extends "boolean" ? boolean : string };
}

export function required(value: string | undefined, flag: string, usage: string): string {
  if (value === undefined || value === "") throw new UsageError(`missing ${flag}\n\n${usage}`);
  return value;
}

/** Machine-readable result: one JSON line on stdout. Progress goes to stderr (`progress`). */
export function printResult(result: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify(result, (_, v) => (typeof v === "bigint" ? v.toString() : v))}\n`);
}

/**
 * A list: one JSON line per item, and `[]` alone when there is none (so an empty answer is still one JSON value, not
 * silence). `table` (the `--table` flag): a header line and aligned columns for people, `(none)` when empty.
 */
export function printList(list: readonly object[], table = false): void {
  const items = list as readonly Record<string, unknown>[];
  if (!table) {
    if (items.length === 0) process.stdout.write("[]\n");
    for (const item of items) printResult(item);
    return;
  }
  if (items.length === 0) {
    process.stdout.write("(none)\n");
    return;
  }
  const columns = [...new Set(items.flatMap((item) => Object.keys(item)))];
  const cell = (value: unknown) => (value === undefined || value === null ? "" : typeof value === "object" ? JSON.stringify(value) : String(value));
  const rows = [columns, ...items.map((item) => columns.map((column) => cell(item[column])))];
  const widths = columns.map((_, i) => Math.max(...rows.map((row) => row[i]!.length)));
  for (const row of rows) process.stdout.write(`${row.map((text, i) => text.padEnd(widths[i]!)).join("  ").trimEnd()}\n`);
}

export function progress(line: string): void {
  process.stderr.write(`${line}\n`);
}

export function parseMachineId(raw: string, usage: string): bigint {
  if (!/^[1-9]\d*$/.test(raw) || BigInt(raw) >= 2n ** 256n) {
    throw new UsageError(`--machine must be a decimal machine ID (1 to 2^256-1)\n\n${usage}`);
  }
  return BigInt(raw);
}

export function parseBytes32(raw: string, flag: string, usage: string): string {
  if (!/^0x[0-9a-fA-F]{64}$/.test(raw)) throw new UsageError(`${flag} must be 0x followed by 64 hex digits\n\n${usage}`);
  return raw.toLowerCase();
}

export function parseUnsigned(raw: string, flag: string, usage: string): bigint {
  if (!/^\d+$/.test(raw)) throw new UsageError(`${flag} must be a non-negative integer\n\n${usage}`);
  return BigInt(raw);
}
