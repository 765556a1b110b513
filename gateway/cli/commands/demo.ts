/**
 * `demo`: print the demo fixture (`<DATA_DIR>/demo.json`).
 */
import { loadConfig } from "../../../subgraphs/shared/config.js";
import { demoFixturePath, readDemoFixture } from "../../../subgraphs/shared/chain/demo-fixture.js";
import { CliError, parseOptions, printResult, type CliCommandGroup } from "../command.js";

const USAGE = `Usage: cli demo

Prints <DATA_DIR>/demo.json as one JSON line: chain, contracts, vendor CA and the demo machines with their keys
(dev only).`;

export const demoCommand: CliCommandGroup = {
  usage: USAGE,
  async run(args) {
    if (!parseOptions(args, {}, USAGE)) return;
    const { dataDir } = loadConfig();
    const fixture = readDemoFixture(dataDir);
    if (!fixture) throw new CliError(`no demo fixture at ${demoFixturePath(dataDir)}: start the platform first`);
    printResult({ ...fixture });
  },
};
