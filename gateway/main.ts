/**
 * Process entry: `tsx gateway/main.ts [all | subgraph <name> | gateway | rest]` (`npm start` runs `all`).
 *
 * Production mode unless told otherwise: graphql-js checks every `instanceof` against a second copy of itself in
 * development mode, a measurable share of each request. It reads NODE_ENV once, when it loads, so it is set here
 * before anything else is imported.
 */
process.env.NODE_ENV ??= "production";
await import("reflect-metadata");
const { loadConfig } = await import("../subgraphs/shared/config.js");
const { consoleLogger, parseRole, startPlatform } = await import("./platform.js");

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
