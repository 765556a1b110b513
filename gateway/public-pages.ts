/**
 * GET routes the public GraphQL listener serves beside /graphql, for consumers of the graph:
 * - `/supergraph.graphql`: the composed supergraph the gateway runs (the committed gateway/supergraph.graphql), the
 *   stable path schema-registry consumers read;
 * - `/graphiql` (development only, like introspection): GraphiQL from the `graphiql` package with React from `react`
 *   and `react-dom`, all served by this listener (Apollo's default landing page loads from a CDN). Its requests carry
 *   `apollo-require-preflight`, which Apollo's CSRF prevention asks of browser requests.
 */
import type { FastifyInstance, FastifyReply } from "fastify";
import type { PlatformConfig } from "../subgraphs/shared/config.js";
import { serveHtml, servePackageAssets } from "../subgraphs/shared/http/package-assets.js";
import { DOCS_LIMIT, pageLimit } from "../rest-shim/page-limit.js";
import type { RateLimiter } from "../rest-shim/rate-limit.js";

export const SUPERGRAPH_PATH = "/supergraph.graphql";
export const GRAPHIQL_PATH = "/graphiql";

const GRAPHIQL_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>GraphiQL</title>
<style>body { margin: 0; height: 100vh; } #graphiql { height: 100vh; }</style>
<link rel="stylesheet" href="${GRAPHIQL_PATH}/assets/graphiql.min.css">
</head>
<body>
<div id="graphiql">Loading GraphiQL...</div>
<script src="${GRAPHIQL_PATH}/assets/react.production.min.js"></script>
<script src="${GRAPHIQL_PATH}/assets/react-dom.production.min.js"></script>
<script src="${GRAPHIQL_PATH}/assets/graphiql.min.js"></script>
<script>
const fetcher = GraphiQL.createFetcher({ url: "/graphql", headers: { "apollo-require-preflight": "true" } });
const defaultQuery = '{\\n  machine(machineId: "1") {\\n    machineId\\n    rating { mcr mcrScore }\\n  }\\n}\\n';
ReactDOM.createRoot(document.getElementById("graphiql")).render(React.createElement(GraphiQL, { fetcher, defaultQuery }));
</script>
</body>
</html>
`;

/** These pages' 429: a GraphQL error body, as the per-IP limits of /graphql answer (operation-limits.ts). */
const refuse = (_request: unknown, reply: FastifyReply, limit: number, windowMs: number) =>
  reply
    .code(429)
    .header("content-type", "application/json; charset=utf-8")
    .send(
      JSON.stringify({
        errors: [
          {
            message: `Too many requests: the per-IP limit ${DOCS_LIMIT} (${limit} per ${windowMs} ms) is used up; retry later.`,
            extensions: { code: "RATE_LIMITED", limit: DOCS_LIMIT },
          },
        ],
      }),
    );

/** The pages, each behind the docs per-IP limit (RATE_LIMIT_DOCS_PER_IP, rest-shim/page-limit.ts). */
export function publicGraphQLPages(
  supergraphSdl: string,
  config: Pick<PlatformConfig, "development" | "rateLimits">,
  rateLimiter: RateLimiter,
): (app: FastifyInstance) => void {
  const body = Buffer.from(supergraphSdl, "utf8");
  const limit = pageLimit(rateLimiter, config.rateLimits, refuse);
  return (app) => {
    app.get(SUPERGRAPH_PATH, { onRequest: limit }, (_request, reply) =>
      reply.code(200).header("content-type", "application/graphql; charset=utf-8").header("cache-control", "no-cache").send(body),
    );
    if (!config.development) return;
    serveHtml(app, GRAPHIQL_PATH, GRAPHIQL_PAGE, limit);
    servePackageAssets(
      app,
      `${GRAPHIQL_PATH}/assets`,
      {
        "react.production.min.js": ["react", "umd/react.production.min.js"],
        "react-dom.production.min.js": ["react-dom", "umd/react-dom.production.min.js"],
        "graphiql.min.js": ["graphiql", "graphiql.min.js"],
        "graphiql.min.css": ["graphiql", "graphiql.min.css"],
      },
      limit,
    );
  };
}
