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
import { openPlatformChain, type PlatformChain } from "../subgraphs/shared/chain/embedded.js";
import { trustBundleLoader } from "./trust-bundle.js";
import { AddressPolicy } from "../subgraphs/shared/net/address-policy.js";
import { OutboundClient } from "../subgraphs/shared/net/outbound.js";
import { SUBGRAPH_BUILDERS, type SubgraphServices } from "./subgraph-runtime.js";
import type { BackgroundJob, SubgraphRuntime } from "../subgraphs/shared/runtime.js";
import { readCommittedSupergraph, DEFAULT_SUBGRAPH_PORTS } from "./compose.js";
import { startGatewayServer, type SubgraphEndpoint } from "./gateway.js";
import { createLocalExecutor } from "./local-executor.js";
import { listenGraphQL } from "./graphql-listener.js";

export type Role = { kind: "all" } | { kind: "subgraph"; name: SubgraphName } | { kind: "gateway" } | { kind: "rest" };

export interface RunningPlatform {
  urls: Record<string, string>;
  chain?: PlatformChain;
  gateway?: ApolloServer<SubgraphContext>;
  /** The services of the subgraphs this process built (for tests and operator tooling). */
  services: Partial<SubgraphServices>;
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

/** Closes what was opened, last first, even when a step fails half-way. */
class Closer {
  private readonly steps: Array<() => Promise<unknown> | unknown> = [];
  add(step: () => Promise<unknown> | unknown): void {
    this.steps.push(step);
  }
  async close(): Promise<void> {
    for (const step of this.steps.reverse()) await Promise.resolve().then(step).catch(() => {});
  }
}

export async function startPlatform(role: Role, config: PlatformConfig, logger: Logger): Promise<RunningPlatform> {
  const closer = new Closer();
  try {
    return await start(role, config, logger, closer);
  } catch (error) {
    await closer.close();
    throw error;
  }
}

async function start(role: Role, config: PlatformConfig, logger: Logger, closer: Closer): Promise<RunningPlatform> {
  const close = () => closer.close();
  if (role.kind === "rest") {
    if (!config.gatewayUrl) throw new Error("the rest role needs GATEWAY_URL");
    const executor = createHttpExecutor(config.gatewayUrl);
    return { urls: await listenRest(config, executor, closer), services: {}, close };
  }
  if (role.kind === "gateway") {
    const subgraphs = {} as Record<SubgraphName, SubgraphEndpoint>;
    for (const name of SUBGRAPH_NAMES) {
      const url = config.subgraphUrls[name];
      if (!url) throw new Error(`the gateway role needs SUBGRAPH_${name.toUpperCase()}_URL`);
      subgraphs[name] = { url };
    }
    const gateway = await startGatewayServer({ supergraphSdl: await readCommittedSupergraph(), subgraphs });
    closer.add(() => gateway.server.stop());
    const listener = await listenGraphQL(gateway.server, { host: config.host, port: config.graphqlPort, trustForwardedClientIp: true });
    closer.add(() => listener.close());
    logger.info(`gateway: ${listener.url}`);
    return { urls: { graphql: listener.url }, gateway: gateway.server, services: {}, close };
  }

  if (role.kind === "subgraph" && (!config.databaseUrl || !config.chain.rpcUrl)) {
    throw new Error("the subgraph role needs DATABASE_URL and CHAIN_RPC_URL (PGlite and the embedded chain belong to one process)");
  }
  if (!config.chain.rpcUrl) logger.info(`starting the embedded chain (anvil) with its state in ${config.dataDir}/chain ...`);
  const chain = await openPlatformChain(config, logger.info);
  closer.add(() => chain.stop());
  logger.info(`database: ${config.databaseUrl ? "PostgreSQL (DATABASE_URL)" : `PGlite in ${config.dataDir}/pglite`}`);
  const db: Database = await openDatabase(config);
  closer.add(() => db.close());
  const reader = new ChainReader({
    rpcUrl: chain.rpcUrl,
    addresses: chain.addresses,
    chainId: chain.chainId,
    requestTimeoutMs: config.chain.requestTimeoutMs,
    pollIntervalMs: config.chain.pollIntervalMs,
  });
  await reader.start();
  closer.add(() => reader.close());
  const runtime: SubgraphRuntime = {
    config,
    db,
    chain: reader,
    rpcUrl: chain.rpcUrl,
    demo: chain.demo,
    trust: trustBundleLoader(config, chain.demo),
    outbound: new OutboundClient(new AddressPolicy(config.outboundAllowCidrs)),
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
    const server = new ApolloServer<SubgraphContext>({ schema: schemas[role.name], includeStacktraceInErrorResponses: false });
    await server.start();
    closer.add(() => server.stop());
    const port = config.subgraphPort ?? DEFAULT_SUBGRAPH_PORTS[role.name];
    const listener = await listenGraphQL(server, { host: config.host, port, trustForwardedClientIp: true });
    closer.add(() => listener.close());
    logger.info(`subgraph ${role.name}: ${listener.url}`);
    return { urls: { subgraph: listener.url }, chain, services, close };
  }

  const subgraphs = {} as Record<SubgraphName, SubgraphEndpoint>;
  for (const name of SUBGRAPH_NAMES) subgraphs[name] = { schema: schemas[name] };
  const gateway = await startGatewayServer({ supergraphSdl: await readCommittedSupergraph(), subgraphs });
  closer.add(() => gateway.server.stop());
  const graphql = await listenGraphQL(gateway.server, { host: config.host, port: config.graphqlPort, trustForwardedClientIp: false });
  closer.add(() => graphql.close());
  const restUrls = await listenRest(config, createLocalExecutor(gateway), closer);
  const urls: Record<string, string> = { graphql: graphql.url, ...restUrls, rpc: chain.rpcUrl };
  logger.info(`GraphQL gateway:        ${urls.graphql}`);
  logger.info(`REST (documents 1, 2):  ${urls.http}`);
  logger.info(`REST (document 3):      ${urls.markets}/api/v1`);
  logger.info(`chain RPC:              ${urls.rpc}`);
  if (chain.demo) logger.info(`demo fixture:           ${config.dataDir}/demo.json`);
  return { urls, chain, gateway: gateway.server, services, close };
}

async function listenRest(config: PlatformConfig, executor: GraphQLExecutor, closer: Closer): Promise<Record<string, string>> {
  const rest = createRestListeners({ config, executor });
  closer.add(() => rest.close());
  const { httpUrl, marketsUrl } = await rest.listen();
  return { http: httpUrl, markets: marketsUrl };
}

/** Runs a subgraph's background job on its interval (0 or less: never; tests run jobs on demand). */
function startJob(job: BackgroundJob, logger: Logger, closer: Closer): void {
  if (job.intervalMs <= 0) return;
  const timer = setInterval(() => {
    job.run().catch((error) => logger.error(`${job.name} failed`, error));
  }, job.intervalMs);
  timer.unref();
  closer.add(() => clearInterval(timer));
}
