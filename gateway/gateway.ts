/**
 * The Apollo Gateway over the committed static supergraph, with each subgraph in-process or remote.
 */
import { ApolloGateway } from "@apollo/gateway";
import { ApolloServer } from "@apollo/server";
import type { GraphQLSchema } from "graphql";
import type { SubgraphName } from "../subgraphs/index.js";
import type { SubgraphContext } from "../subgraphs/shared/context.js";
import { CachedLocalDataSource, ForwardingRemoteDataSource } from "./data-sources.js";

export type SubgraphEndpoint = { schema: GraphQLSchema } | { url: string };

export interface GatewayOptions {
  supergraphSdl: string;
  subgraphs: Record<SubgraphName, SubgraphEndpoint>;
}

export async function startGatewayServer(options: GatewayOptions): Promise<ApolloServer<SubgraphContext>> {
  const gateway = new ApolloGateway({
    supergraphSdl: options.supergraphSdl,
    buildService: ({ name }) => {
      const endpoint = options.subgraphs[name as SubgraphName];
      if (!endpoint) throw new Error(`supergraph names an unknown subgraph: ${name}`);
      return "schema" in endpoint ? new CachedLocalDataSource(endpoint.schema) : new ForwardingRemoteDataSource({ url: endpoint.url });
    },
  });
  const server = new ApolloServer<SubgraphContext>({
    gateway,
    includeStacktraceInErrorResponses: false,
    introspection: true,
  });
  await server.start();
  return server;
}
