/**
 * Process entry: `tsx gateway/main.ts [all | subgraph <name> | gateway | rest]` (`npm start` runs `all`).
 */
import "reflect-metadata";
import { loadConfig } from "../subgraphs/shared/config.js";
import { consoleLogger, parseRole, startPlatform } from "./platform.js";

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = consoleLogger(config.logLevel);
  const role = parseRole(process.argv.slice(2));
  const platform = await startPlatform(role, config, logger);
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info(`${signal}: shutting down`);
    await platform.close();
    process.exit(0);
  };
  process.on("SIGINT", () => void stop("SIGINT"));
  process.on("SIGTERM", () => void stop("SIGTERM"));
  logger.info("ready");
}

main().catch((error) => {
  console.error(`failed to start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
