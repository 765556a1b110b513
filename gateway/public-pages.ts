/**
 * GET routes the public GraphQL listener serves beside /graphql, for consumers of the graph:
 * - `/supergraph.graphql`: the composed supergraph the gateway runs (the committed gateway/supergraph.graphql), the
 *   stable path schema-registry consumers read;
 * - `/graphiql` (development only, like introspection): GraphiQL from the `graphiql` package with React from `react`
 *   and `react-dom`, all served by this listener (Apollo's default landing page loads from a CDN). Its requests carry
 *   `apollo-require-preflight`, which Apollo's CSRF prevention asks of browser requests.
 */
import type { FastifyInstance } from "fastify";
import { serveHtml, servePackageAssets } from "../subgraphs/shared/http/package-assets.js";

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

export function publicGraphQLPages(supergraphSdl: string, development: boolean): (app: FastifyInstance) => void {
  const body = Buffer.from(supergraphSdl, "utf8");
  return (app) => {
    app.get(SUPERGRAPH_PATH, (_request, reply) =>
      reply.code(200).header("content-type", "application/graphql; charset=utf-8").header("cache-control", "no-cache").send(body),
    );
    if (!development) return;
    serveHtml(app, GRAPHIQL_PATH, GRAPHIQL_PAGE);
    servePackageAssets(app, `${GRAPHIQL_PATH}/assets`, {
      "react.production.min.js": ["react", "umd/react.production.min.js"],
      "react-dom.production.min.js": ["react-dom", "umd/react-dom.production.min.js"],
      "graphiql.min.js": ["graphiql", "graphiql.min.js"],
      "graphiql.min.css": ["graphiql", "graphiql.min.css"],
    });
  };
}
