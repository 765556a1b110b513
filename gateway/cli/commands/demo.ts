/**
 * `demo`: print the demo fixture (`<DATA_DIR>/demo.json`).
 */
import { readFileSync } from "node:fs";
import { loadConfig } from "../../../subgraphs/shared/config.js";
import { demoFixturePath, readDemoFixture } from "../../../subgraphs/shared/chain/demo-fixture.js";
import { CliError, parseOptions, type CliCommandGroup } from "../command.js";

const USAGE = `Usage: cli demo

Prints <DATA_DIR>/demo.json: chain, contracts, vendor CA and the demo machines with their keys (dev only).`;

export const demoCommand: CliCommandGroup = {
  name: "demo",
  summary: "print the demo fixture",
  usage: USAGE,
  async run(args) {
    if (!parseOptions(args, {}, USAGE)) return;
    const { dataDir } = loadConfig();
    if (!readDemoFixture(dataDir)) throw new CliError(`no demo fixture at ${demoFixturePath(dataDir)}: start the platform first`);
    process.stdout.write(readFileSync(demoFixturePath(dataDir), "utf8"));
  },
};
