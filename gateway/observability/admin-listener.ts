/**
 * The admin listener: Prometheus metrics at GET /metrics, on its own address (ADMIN_HOST, loopback by default;
 * ADMIN_PORT, default 9464), never on the public REST or GraphQL ports. Every role of the platform runs one.
 */
import Fastify from "fastify";
import type { PlatformConfig } from "../../subgraphs/shared/config.js";
import { closeListener } from "../../subgraphs/shared/http/listener.js";
import { registry } from "../../subgraphs/shared/observability/metrics.js";
import type { RunningListener } from "../graphql-listener.js";

export const METRICS_PATH = "/metrics";

export async function listenAdmin(config: Pick<PlatformConfig, "admin" | "listeners">, port: number): Promise<RunningListener> {
  const app = Fastify({ logger: false });
  app.get(METRICS_PATH, async (_request, reply) => {
    const text = await registry.metrics();
    return reply.code(200).header("content-type", registry.contentType).header("cache-control", "no-store").send(text);
  });
  app.setNotFoundHandler((_request, reply) => reply.code(404).header("content-type", "text/plain; charset=utf-8").send(`Not found; metrics are at ${METRICS_PATH}.\n`));
  await app.listen({ host: config.admin.host, port });
  const address = app.server.address() as { port: number };
  return {
    url: `http://${config.admin.host}:${address.port}${METRICS_PATH}`,
    close: () => closeListener(app, config.listeners.shutdownGraceMs),
  };
}
