/**
 * `GET /openapi.json` on a REST listener: the listener's document, generated from the routes it serves on the first
 * request (examples from the running platform's demo fixture, when it has one) and kept.
 */
import type { FastifyInstance, onRequestHookHandler } from "fastify";
import type { PlatformConfig } from "../../subgraphs/shared/config.js";
import { readDemoFixture } from "../../subgraphs/shared/chain/demo-fixture.js";
import type { ListenerName, RouteDefinition } from "../route-definition.js";
import { buildOpenApiDocument } from "./document.js";
import { serveExplorer } from "./explorer.js";

export const OPENAPI_PATH = "/openapi.json";

/**
 * `/openapi.json` and the Swagger UI page that reads it (`/docs`, explorer.ts), all behind `limit` (the docs per-IP
 * limit, page-limit.ts).
 */
export function serveOpenApi(
  app: FastifyInstance,
  listener: ListenerName,
  routes: readonly RouteDefinition[],
  config: PlatformConfig,
  limit: onRequestHookHandler,
): void {
  serveExplorer(app, OPENAPI_PATH, limit);
  let body: Buffer | undefined;
  app.get(OPENAPI_PATH, { onRequest: limit }, (_request, reply) => {
    body ??= Buffer.from(JSON.stringify(buildOpenApiDocument(listener, routes, config, readDemoFixture(config.dataDir) ?? undefined)), "utf8");
    return reply.code(200).header("content-type", "application/json; charset=utf-8").header("cache-control", "no-cache").send(body);
  });
}
