/**
 * The Apollo Gateway over the committed static supergraph, with each subgraph in-process or remote.
 *
 * The gateway is loaded once here and handed to Apollo Server already loaded, so the same executor serves both the
 * GraphQL listener (through Apollo Server's request pipeline) and the REST shim's prepared operations (straight to
 * the executor: see local-executor.ts).
 */
import { ApolloGateway } from "@apollo/gateway";
import { ApolloServer } from "@apollo/server";
import type { GatewayInterface } from "@apollo/server-gateway-interface";
import type { GraphQLSchema } from "graphql";
import type { SubgraphName } from "../subgraphs/index.js";
import type { SubgraphContext } from "../subgraphs/shared/context.js";
import { CachedLocalDataSource, ForwardingRemoteDataSource } from "./data-sources.js";

export type SubgraphEndpoint = { schema: GraphQLSchema } | { url: string };

export interface GatewayOptions {
  supergraphSdl: string;
  subgraphs: Record<SubgraphName, SubgraphEndpoint>;
}

/** What `ApolloGateway.load()` resolves to: the API schema and the executor. */
type GatewayLoadResult = Awaited<ReturnType<ApolloGateway["load"]>>;

export interface RunningGateway {
  server: ApolloServer<SubgraphContext>;
  /** The gateway's executor and API schema, for callers that prepare their operations themselves. */
  loaded: GatewayLoadResult;
}

export async function startGatewayServer(options: GatewayOptions): Promise<RunningGateway> {
  // @apollo/gateway exports usage metrics to Apollo and probes cloud metadata endpoints (AWS, GCP, Azure, Alibaba)
  // unless told not to. The platform makes no outbound calls of its own; an operator may still opt in explicitly.
  process.env.APOLLO_TELEMETRY_DISABLED ??= "true";
  const gateway = new ApolloGateway({
    supergraphSdl: options.supergraphSdl,
    buildService: ({ name }) => {
      const endpoint = options.subgraphs[name as SubgraphName];
      if (!endpoint) throw new Error(`supergraph names an unknown subgraph: ${name}`);
      return "schema" in endpoint ? new CachedLocalDataSource(endpoint.schema) : new ForwardingRemoteDataSource({ url: endpoint.url });
    },
  });
  const loaded = await gateway.load();
  const server = new ApolloServer<SubgraphContext>({
    gateway: alreadyLoaded(gateway, loaded, options.supergraphSdl),
    includeStacktraceInErrorResponses: false,
    introspection: true,
  });
  await server.start();
  return { server, loaded };
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
