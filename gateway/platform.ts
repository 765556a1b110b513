/**
 * One build, four roles:
 *   all              subgraphs in-process, gateway, REST listeners, embedded database and chain (`npm start`)
 *   subgraph <name>  one subgraph over HTTP (needs DATABASE_URL and CHAIN_RPC_URL)
 *   gateway          the gateway over remote subgraphs (SUBGRAPH_<NAME>_URL)
 *   rest             the REST listeners over a remote gateway (GATEWAY_URL)
 * Every role is stateless; correctness across replicas comes from the database.
 */
import { ApolloServer } from "@apollo/server";
import type { GraphQLSchema } from "graphql";
import { SUBGRAPH_NAMES, type SubgraphName } from "../subgraphs/index.js";
import type { PlatformConfig } from "../subgraphs/shared/config.js";
import type { SubgraphContext } from "../subgraphs/shared/context.js";
import { openDatabase, type Database } from "../subgraphs/shared/db/index.js";
import { ChainReader } from "../subgraphs/shared/chain/reader.js";
import { createRestListeners } from "../rest-shim/server.js";
import { createHttpExecutor } from "../rest-shim/http-executor.js";
import type { GraphQLExecutor } from "../rest-shim/executor.js";
import type { AnswerVersions } from "../rest-shim/answer-reuse.js";
import { openPlatformChain, type PlatformChain } from "../subgraphs/shared/chain/embedded.js";
import { prepareDataDir } from "../subgraphs/shared/data-dir.js";
import { createRateLimiter, type RateLimiter } from "../rest-shim/rate-limit.js";
import { AddressPolicy } from "../subgraphs/shared/net/address-policy.js";
import { OutboundClient } from "../subgraphs/shared/net/outbound.js";
import { demoFixturePath, type DemoFixture } from "../subgraphs/shared/chain/demo-fixture.js";
import { writeSecretFile } from "../subgraphs/shared/data-dir.js";
import { DEMO_PROVIDER_KEY } from "../subgraphs/markets/work/catalogue.seed.js";
import {
  DEMO_PROVIDER_OPERATION,
  DEMO_PROVIDER_SKILL,
  DEMO_PROVIDER_TOKEN,
  demoAgent,
  startDemoProvider,
  type DemoProvider,
} from "../subgraphs/markets/work/demo.provider.js";
import { SUBGRAPH_BUILDERS, type SubgraphServices } from "./subgraph-runtime.js";
import type { BackgroundJob, SubgraphRuntime } from "../subgraphs/shared/runtime.js";
import { systemClock, type Clock } from "../subgraphs/shared/clock.js";
import { readCommittedSupergraph, DEFAULT_SUBGRAPH_PORTS } from "./compose.js";
import { errorAndSchemaOptions, startGatewayServer, type RunningGateway, type SubgraphEndpoint } from "./gateway.js";
import { createLocalExecutor, type LocalExecutor } from "./local-executor.js";
import { listenGraphQL, type RunningListener } from "./graphql-listener.js";
import { publicGraphQLPages } from "./public-pages.js";
import { listenAdmin } from "./observability/admin-listener.js";
import { instrumentExecutor } from "./observability/graphql-metrics.js";
import { createLog, type PlatformLog } from "../subgraphs/shared/observability/log.js";
import type { DestinationStream } from "pino";
import { observeChallenges } from "./observability/open-challenges.js";
import { checkExposure } from "./network-guard.js";

export type Role = { kind: "all" } | { kind: "subgraph"; name: SubgraphName } | { kind: "gateway" } | { kind: "rest" };

export interface RunningPlatform {
  urls: Record<string, string>;
  chain?: PlatformChain;
  gateway?: ApolloServer<SubgraphContext>;
  /** The services of the subgraphs this process built (for tests and operator tooling). */
  services: Partial<SubgraphServices>;
  /** The database this process opened (roles that serve subgraphs), for tests that take it away. */
  database?: Database;
  /** Role `all`: the in-process gateway and the shim's executor over it (tests compare the shim's two paths). */
  shim?: { gateway: RunningGateway; executor: LocalExecutor };
  close(): Promise<void>;
}

export type Logger = { info(line: string): void; error(line: string, error?: unknown): void };

export function consoleLogger(level: PlatformConfig["logLevel"]): Logger {
  return {
    info: (line) => level === "info" && console.error(line),
    error: (line, error) => {
      if (level === "silent") return;
      console.error(error instanceof Error ? `${line}: ${error.message}` : line);
    },
  };
}

export function parseRole(args: string[]): Role {
  const [kind = "all", name] = args;
  if (kind === "all" || kind === "gateway" || kind === "rest") return { kind };
  if (kind === "subgraph" && (SUBGRAPH_NAMES as readonly string[]).includes(name ?? "")) {
    return { kind, name: name as SubgraphName };
  }
  throw new Error(`unknown role "${args.join(" ")}": use all | subgraph <${SUBGRAPH_NAMES.join("|")}> | gateway | rest`);
}

/** Closes what was opened, last first, even when a step fails half-way. Listeners drain in parallel, first. */
class Closer {
  private readonly steps: Array<() => Promise<unknown> | unknown> = [];
  private readonly listeners: RunningListener[] = [];
  add(step: () => Promise<unknown> | unknown): void {
    this.steps.push(step);
  }
  addListeners(listeners: RunningListener[]): void {
    this.listeners.push(...listeners);
  }
  async close(): Promise<void> {
    // Requests in flight may still need everything else (gateway, database, chain): listeners go first, together.
    await Promise.all(this.listeners.splice(0).map((listener) => listener.close().catch(() => {})));
    for (const step of this.steps.splice(0).reverse()) await Promise.resolve().then(step).catch(() => {});
  }
}

export interface StartOptions {
  /** The subgraphs' clock (tests move time); default: the system clock. */
  clock?: Clock;
  /** The clock that places requests in per-IP rate-limit windows; default: `clock`, else the system clock. Tests
   * freeze it so that no window boundary falls inside a sequence of requests. */
  rateLimitClock?: Clock;
  /** Wraps the vendor trust-bundle loader the evidence checks call after claiming a challenge: tests hold a check
   * inside its lease with it (a barrier), or make the trust store fail. */
  wrapTrust?: <T>(load: () => Promise<T>) => () => Promise<T>;
  /** Where request log lines go; default stdout (tests capture them). */
  logDestination?: DestinationStream;
}

export async function startPlatform(role: Role, config: PlatformConfig, logger: Logger, options: StartOptions = {}): Promise<RunningPlatform> {
  const closer = new Closer();
  try {
    const running = await start(role, config, logger, closer, options);
    if (config.admin.port !== null) {
      const admin = await listenAdmin(config, config.admin.port);
      closer.addListeners([admin]);
      running.urls.admin = admin.url;
      logger.info(`admin (metrics): ${admin.url}`);
    }
    return running;
  } catch (error) {
    await closer.close();
    throw error;
  }
}

async function start(role: Role, config: PlatformConfig, logger: Logger, closer: Closer, options: StartOptions): Promise<RunningPlatform> {
  const close = () => closer.close();
  // Request lines (JSON; pino-pretty in development), one per request on every listener of this process.
  const log = createLog(config, options.logDestination);
  closer.add(() => log.flush());
  const exposureWarning = checkExposure(config, role);
  if (exposureWarning) logger.error(exposureWarning);
  if (role.kind !== "all" && !config.internalToken) {
    throw new Error(`the ${role.kind} role needs INTERNAL_TOKEN, the secret the roles of the split topology share`);
  }
  const report = (error: unknown) => logger.error("graphql: internal error (masked)", error);
  if (role.kind === "rest") {
    if (!config.gatewayUrl) throw new Error("the rest role needs GATEWAY_URL");
    const executor = createHttpExecutor(config.gatewayUrl, { internalToken: config.internalToken });
    closer.add(() => executor.close?.());
    const rest = await listenRest(config, executor, limiterFor(config, logger, closer, options), log);
    closer.addListeners(rest.listeners);
    return { urls: rest.urls, services: {}, close };
  }
  if (role.kind === "gateway") {
    const subgraphs = {} as Record<SubgraphName, SubgraphEndpoint>;
    for (const name of SUBGRAPH_NAMES) {
      const url = config.subgraphUrls[name];
      if (!url) throw new Error(`the gateway role needs SUBGRAPH_${name.toUpperCase()}_URL`);
      subgraphs[name] = { url };
    }
    const rateLimiter = limiterFor(config, logger, closer, options);
    const supergraphSdl = await readCommittedSupergraph();
    const gateway = await startGatewayServer({ supergraphSdl, subgraphs, config, rateLimiter, report });
    closer.add(() => gateway.server.stop());
    const pages = publicGraphQLPages(supergraphSdl, config, rateLimiter);
    const listener = await listenGraphQL(gateway.server, { host: config.host, port: config.graphqlPort, config, audience: "public", pages, log });
    closer.addListeners([listener]);
    logger.info(`gateway: ${listener.url}`);
    return { urls: { graphql: listener.url }, gateway: gateway.server, services: {}, close };
  }

  if (role.kind === "subgraph" && (!config.databaseUrl || !config.chain.rpcUrl)) {
    throw new Error("the subgraph role needs DATABASE_URL and CHAIN_RPC_URL (PGlite and the embedded chain belong to one process)");
  }
  if (!config.chain.rpcUrl || !config.databaseUrl) prepareDataDir(config.dataDir, logger.info);
  if (!config.chain.rpcUrl) logger.info(`starting the embedded chain (anvil) with its state in ${config.dataDir}/chain ...`);
  const chain = await openPlatformChain(config, logger.info);
  closer.add(() => chain.stop());
  logger.info(`database: ${config.databaseUrl ? "PostgreSQL (DATABASE_URL)" : `PGlite in ${config.dataDir}/pglite`}`);
  const db: Database = await openDatabase(config);
  closer.add(() => db.close());
  closer.add(observeChallenges(db, options.clock ?? systemClock));
  const reader = new ChainReader({
    rpcUrl: chain.rpcUrl,
    addresses: chain.addresses,
    chainId: chain.chainId,
    requestTimeoutMs: config.chain.requestTimeoutMs,
    pollIntervalMs: config.chain.pollIntervalMs,
    maxInFlight: config.chain.maxInFlight,
  });
  await reader.start();
  closer.add(() => reader.close());
  // Role `all` with the embedded demo also runs the demo provider (document 3's native skill), on loopback only.
  const demoProvider = role.kind === "all" && chain.demo ? await startDemoParts(config, chain.demo, logger) : null;
  if (demoProvider) closer.add(() => demoProvider.close());
  const runtime: SubgraphRuntime = {
    config,
    db,
    chain: reader,
    rpcUrl: chain.rpcUrl,
    demo: chain.demo,
    wrapTrust: options.wrapTrust,
    outbound: new OutboundClient(new AddressPolicy(config.outboundAllowCidrs), { allowedOrigins: demoProvider ? [demoProvider.url] : [] }),
    clock: options.clock,
    log: (error: unknown) => logger.error("internal error", error),
  };

  const names = role.kind === "all" ? SUBGRAPH_NAMES : [role.name];
  const schemas = {} as Record<SubgraphName, GraphQLSchema>;
  const services: Partial<SubgraphServices> = {};
  for (const name of names) {
    const built = await SUBGRAPH_BUILDERS[name](runtime);
    if (built.close) closer.add(() => built.close!());
    schemas[name] = built.schema;
    (services as Record<string, unknown>)[name] = built.services;
    for (const job of built.jobs ?? []) startJob(job, logger, closer);
  }

  if (role.kind === "subgraph") {
    const server = new ApolloServer<SubgraphContext>({ schema: schemas[role.name], ...errorAndSchemaOptions(config, report) });
    await server.start();
    closer.add(() => server.stop());
    const port = config.subgraphPort ?? DEFAULT_SUBGRAPH_PORTS[role.name];
    const listener = await listenGraphQL(server, { host: config.host, port, config, audience: "internal", log });
    closer.addListeners([listener]);
    logger.info(`subgraph ${role.name}: ${listener.url}`);
    return { urls: { subgraph: listener.url }, chain, services, database: db, close };
  }

  const subgraphs = {} as Record<SubgraphName, SubgraphEndpoint>;
  for (const name of SUBGRAPH_NAMES) subgraphs[name] = { schema: schemas[name] };
  // One set of per-IP counters for both doors: a REST route and its GraphQL root field spend the same budget.
  const rateLimiter = limiterFor(config, logger, closer, options);
  const supergraphSdl = await readCommittedSupergraph();
  const gateway = await startGatewayServer({ supergraphSdl, subgraphs, config, rateLimiter, report });
  closer.add(() => gateway.server.stop());
  const pages = publicGraphQLPages(supergraphSdl, config, rateLimiter);
  const graphql = await listenGraphQL(gateway.server, { host: config.host, port: config.graphqlPort, config, audience: "public", pages, log });
  // The shim may reuse an answer while the chain block it was read at is the one every read is pinned to: the
  // subgraphs above read through this same reader (rest-shim/answer-reuse.ts).
  const answerVersions = config.shimAnswerReuse ? { chainBlock: () => reader.headVersion } : undefined;
  // Each shim operation's path (one subgraph directly, or the gateway) is decided on its first use, from its query plan.
  const executor = createLocalExecutor(gateway);
  const rest = await listenRest(config, executor, rateLimiter, log, answerVersions).catch(async (error) => {
    await graphql.close();
    throw error;
  });
  closer.addListeners([graphql, ...rest.listeners]);
  const urls: Record<string, string> = { graphql: graphql.url, ...rest.urls, rpc: chain.rpcUrl };
  logger.info(`GraphQL gateway:        ${urls.graphql}`);
  logger.info(`REST (documents 1, 2):  ${urls.http}`);
  logger.info(`REST (document 2, 2.0): ${urls.mcr2}`);
  logger.info(`REST (document 3):      ${urls.markets}/api/v1`);
  logger.info(`chain RPC:              ${urls.rpc}`);
  if (chain.demo) logger.info(`demo fixture:           ${config.dataDir}/demo.json`);
  return { urls, chain, gateway: gateway.server, services, database: db, shim: { gateway, executor }, close };
}

async function startDemoParts(config: PlatformConfig, demo: DemoFixture, logger: Logger): Promise<DemoProvider> {
  const provider = await startDemoProvider({ host: "127.0.0.1", port: config.marketsWork.demoProviderPort });
  demo.markets = {
    provider: {
      url: provider.url,
      providerKey: DEMO_PROVIDER_KEY,
      skillKey: DEMO_PROVIDER_SKILL,
      operation: DEMO_PROVIDER_OPERATION,
      authType: "bearer",
      authToken: DEMO_PROVIDER_TOKEN,
    },
    agent: demoAgent(),
  };
  writeSecretFile(demoFixturePath(config.dataDir), `${JSON.stringify(demo, null, 2)}\n`);
  logger.info(`demo provider:          ${provider.url} (${DEMO_PROVIDER_SKILL})`);
  return provider;
}

function limiterFor(config: PlatformConfig, logger: Logger, closer: Closer, options: StartOptions): RateLimiter {
  const clock = options.rateLimitClock ?? options.clock;
  const limiter = createRateLimiter(
    config,
    (name) => logger.error(`rate-limit: counters unavailable (REDIS_${name}); requests pass`),
    clock ? () => clock.now() : Date.now,
  );
  closer.add(() => limiter.close());
  return limiter;
}

async function listenRest(
  config: PlatformConfig,
  executor: GraphQLExecutor,
  rateLimiter: RateLimiter,
  log: PlatformLog,
  answerVersions?: AnswerVersions,
): Promise<{ urls: Record<string, string>; listeners: RunningListener[] }> {
  const rest = createRestListeners({ config, executor: config.requestMetrics ? instrumentExecutor(executor) : executor, rateLimiter, log, answerVersions });
  try {
    const { httpUrl, marketsUrl, mcr2Url } = await rest.listen();
    return { urls: { http: httpUrl, markets: marketsUrl, mcr2: mcr2Url }, listeners: [{ url: httpUrl, close: () => rest.close() }] };
  } catch (error) {
    await rest.close();
    throw error;
  }
}

/** Runs a subgraph's background job on its interval (0 or less: never; tests run jobs on demand). */
function startJob(job: BackgroundJob, logger: Logger, closer: Closer): void {
  if (job.intervalMs <= 0) return;
  const timer = setInterval(() => {
    job.run().then(
      (result) => {
        if (job.describe) logger.info(job.describe(result));
      },
      (error) => logger.error(`${job.name} failed`, error),
    );
  }, job.intervalMs);
  timer.unref();
  closer.add(() => clearInterval(timer));
}
