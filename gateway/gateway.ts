/**
 * The Apollo Gateway over the committed static supergraph, with each subgraph in-process or remote.
 *
 * The gateway is loaded once here and handed to Apollo Server already loaded, so the same executor serves both the
 * GraphQL listener (through Apollo Server's request pipeline) and the REST shim's prepared operations (straight to
 * the executor: see local-executor.ts).
 */
import { ApolloGateway } from "@apollo/gateway";
import { ApolloServer } from "@apollo/server";
import type { QueryPlanner } from "@apollo/query-planner";
import type { GatewayInterface } from "@apollo/server-gateway-interface";
import type { GraphQLSchema } from "graphql";
import type { SubgraphName } from "../subgraphs/index.js";
import { BearerTokens } from "../subgraphs/shared/bearer.js";
import type { PlatformConfig } from "../subgraphs/shared/config.js";
import type { SubgraphContext } from "../subgraphs/shared/context.js";
import { maskError } from "../subgraphs/shared/error-mask.js";
import type { RateLimiter } from "../rest-shim/rate-limit.js";
import { CachedLocalDataSource, ForwardingRemoteDataSource } from "./data-sources.js";
import { costLimits, perIpLimits } from "./operation-limits.js";
import { operationMetricsPlugin } from "./observability/graphql-metrics.js";
import { rootFieldBudgets } from "./root-field-budgets.js";

export type SubgraphEndpoint = { schema: GraphQLSchema } | { url: string };

export interface GatewayOptions {
  supergraphSdl: string;
  subgraphs: Record<SubgraphName, SubgraphEndpoint>;
  config: PlatformConfig;
  /** The per-IP counters, shared with the REST listeners of the same process (and, through Redis, every replica). */
  rateLimiter: RateLimiter;
  /** Hears of every error masked before it reached a client. */
  report: (error: unknown) => void;
}

/** What `ApolloGateway.load()` resolves to: the API schema and the executor. */
type GatewayLoadResult = Awaited<ReturnType<ApolloGateway["load"]>>;

export interface RunningGateway {
  server: ApolloServer<SubgraphContext>;
  /** The gateway's executor and API schema, for callers that prepare their operations themselves. */
  loaded: GatewayLoadResult;
  /** The supergraph the gateway plans over. */
  supergraphSdl: string;
  /** The gateway's own query planner (local-executor.ts decides the shim's fixed operations' paths with it). */
  queryPlanner: QueryPlanner;
  /** The data sources of the in-process subgraphs, by subgraph name (none for remote subgraphs). */
  localSources: Partial<Record<SubgraphName, CachedLocalDataSource>>;
}

/** What every Apollo Server of the platform answers errors with, and whether it explains its schema. */
export function errorAndSchemaOptions(config: PlatformConfig, report: (error: unknown) => void) {
  return {
    formatError: (formatted: Parameters<typeof maskError>[0], error: unknown) => maskError(formatted, error, report),
    includeStacktraceInErrorResponses: false,
    // The committed SDL serves schema consumers; a running production server does not describe itself.
    introspection: config.development,
  };
}

export async function startGatewayServer(options: GatewayOptions): Promise<RunningGateway> {
  const { config } = options;
  // @apollo/gateway exports usage metrics to Apollo and probes cloud metadata endpoints (AWS, GCP, Azure, Alibaba)
  // unless told not to. The platform makes no outbound calls of its own; an operator may still opt in explicitly.
  process.env.APOLLO_TELEMETRY_DISABLED ??= "true";
  const localSources: RunningGateway["localSources"] = {};
  const gateway = new ApolloGateway({
    supergraphSdl: options.supergraphSdl,
    buildService: ({ name }) => {
      const endpoint = options.subgraphs[name as SubgraphName];
      if (!endpoint) throw new Error(`supergraph names an unknown subgraph: ${name}`);
      if ("schema" in endpoint) return (localSources[name as SubgraphName] = new CachedLocalDataSource(endpoint.schema, options.report));
      if (!config.internalToken) throw new Error("the gateway needs INTERNAL_TOKEN to call remote subgraphs");
      return new ForwardingRemoteDataSource(endpoint.url, config.internalToken);
    },
  });
  const loaded = await gateway.load();
  // `__testing()` is the gateway's one public way to its planner; a static supergraph has it once loaded.
  const { queryPlanner } = gateway.__testing();
  if (!queryPlanner) throw new Error("the gateway loaded without a query planner");
  const cost = costLimits(config.graphql, config.development);
  const server = new ApolloServer<SubgraphContext>({
    gateway: alreadyLoaded(gateway, loaded, options.supergraphSdl),
    ...errorAndSchemaOptions(config, options.report),
    ...cost,
    plugins: [
      ...(config.requestMetrics === false ? [] : [operationMetricsPlugin()]),
      ...(cost.plugins ?? []),
      perIpLimits({
        budgets: rootFieldBudgets(options.supergraphSdl),
        limiter: options.rateLimiter,
        rateLimits: config.rateLimits,
        onboardingTokens: config.onboardingTokens.length > 0 ? new BearerTokens(config.onboardingTokens) : undefined,
      }),
    ],
  });
  await server.start();
  return { server, loaded, supergraphSdl: options.supergraphSdl, queryPlanner, localSources };
}

/**
 * Apollo Server calls `load()` itself and learns the schema from `onSchemaLoadOrUpdate`; a static supergraph never
 * changes, so both answer from the one load done above.
 */
function alreadyLoaded(gateway: ApolloGateway, loaded: GatewayLoadResult, supergraphSdl: string): GatewayInterface {
  return {
    load: async () => loaded,
    onSchemaLoadOrUpdate(callback) {
      callback({ apiSchema: loaded.schema, coreSupergraphSdl: supergraphSdl });
      return gateway.onSchemaLoadOrUpdate(callback);
    },
    stop: () => gateway.stop(),
  };
}
