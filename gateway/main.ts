/**
 * Process entry: `node dist/gateway/main.js [all | subgraph <name> | gateway | rest]` compiled (`npm start` runs `all`
 * through scripts/run-built.mjs, with `exec` so that npm's own signal forwarding reaches this process and not a shell
 * in between), or `node --import tsx gateway/main.ts <role>` from the sources (`npm run dev`, the tests).
 *
 * Production mode unless told otherwise: graphql-js checks every `instanceof` against a second copy of itself in
 * development mode, a measurable share of each request. It reads NODE_ENV once, when it loads, so it is set here
 * before anything else is imported. `NODE_ENV=development npm start` selects development (GraphQL introspection and
 * field suggestions on).
 *
 * SIGTERM or SIGINT (to this process, or to npm, which forwards both) stops the platform gracefully: listeners stop
 * accepting, requests in flight finish within SHUTDOWN_GRACE_MS, then the database closes and the embedded chain
 * dumps its state. Further signals during shutdown are ignored (npm forwards SIGTERM and SIGINT, and a terminal's
 * Ctrl-C reaches npm and this process alike, so one stop often arrives twice); a shutdown that overruns its
 * deadline exits at once.
 */
process.env.NODE_ENV ??= "production";
await import("reflect-metadata");
const { loadConfig } = await import("../subgraphs/shared/config.js");
const { consoleLogger, parseRole, startPlatform } = await import("./platform.js");

/** What the shutdown may take beyond the grace for requests: closing the database and the chain's state dump. */
const SHUTDOWN_SLACK_MS = 10_000;

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = consoleLogger(config.logLevel);
  const role = parseRole(process.argv.slice(2));
  const platform = await startPlatform(role, config, logger);
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info(`${signal}: shutting down (requests in flight get ${config.listeners.shutdownGraceMs} ms)`);
    const overrun = setTimeout(() => {
      logger.error("shutdown overran its deadline: exiting");
      process.exit(1);
    }, config.listeners.shutdownGraceMs + SHUTDOWN_SLACK_MS);
    overrun.unref();
    await platform.close();
    logger.info("stopped");
    process.exit(0);
  };
  process.on("SIGINT", () => void stop("SIGINT"));
  process.on("SIGTERM", () => void stop("SIGTERM"));
  // The lifecycle line that launchers and tests wait for: written at every level but silent, so that LOG_LEVEL=error
  // (no info lines) still says when the platform serves.
  if (config.logLevel !== "silent") console.error("ready");
}

main().catch((error) => {
  console.error(`failed to start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
