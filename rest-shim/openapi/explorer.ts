/**
 * The API reference page of a REST listener: Swagger UI from the `swagger-ui-dist` package at `/docs`, reading the
 * listener's own `/openapi.json` ("Try it out" sends requests to the same listener).
 */
import type { FastifyInstance, onRequestHookHandler } from "fastify";
import { serveHtml, servePackageAssets } from "../../subgraphs/shared/http/package-assets.js";

export const EXPLORER_PATH = "/docs";

const page = (documentUrl: string) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>API reference</title>
<link rel="stylesheet" href="${EXPLORER_PATH}/assets/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="${EXPLORER_PATH}/assets/swagger-ui-bundle.js"></script>
<script>
window.ui = SwaggerUIBundle({ url: ${JSON.stringify(documentUrl)}, dom_id: "#swagger-ui", deepLinking: true, tryItOutEnabled: true });
</script>
</body>
</html>
`;

export function serveExplorer(app: FastifyInstance, documentUrl: string, limit: onRequestHookHandler): void {
  serveHtml(app, EXPLORER_PATH, page(documentUrl), limit);
  servePackageAssets(
    app,
    `${EXPLORER_PATH}/assets`,
    {
      "swagger-ui.css": ["swagger-ui-dist", "swagger-ui.css"],
      "swagger-ui-bundle.js": ["swagger-ui-dist", "swagger-ui-bundle.js"],
    },
    limit,
  );
}
