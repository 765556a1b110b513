/**
 * GET routes the public GraphQL listener serves beside /graphql, for consumers of the graph:
 * - `/supergraph.graphql`: the composed supergraph the gateway runs (the committed gateway/supergraph.graphql), the
 *   stable path schema-registry consumers read.
 */
import type { FastifyInstance } from "fastify";

export const SUPERGRAPH_PATH = "/supergraph.graphql";

export function publicGraphQLPages(supergraphSdl: string): (app: FastifyInstance) => void {
  const body = Buffer.from(supergraphSdl, "utf8");
  return (app) => {
    app.get(SUPERGRAPH_PATH, (_request, reply) =>
      reply.code(200).header("content-type", "application/graphql; charset=utf-8").header("cache-control", "no-cache").send(body),
    );
  };
}
