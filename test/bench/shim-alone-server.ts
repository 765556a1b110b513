/**
 * The REST shim alone: the platform's own markets listener (its route table, hooks, per-IP limits, request logs and
 * metrics, the route's variables, enum spellings and envelope) over an executor that answers the markets list's
 * operation with a result read once from a running platform's gateway. What it costs beyond bare `node:http` is the
 * shim's HTTP side; the platform's figure beyond the shim's and the statement's floor is the operation (GraphQL
 * execution, resolver, service, global rule 1's verdict). The canned result is parsed from its JSON text per request
 * (about 1.4 us: the shim spells enums in place, so each request needs its own copy).
 *
 * Usage: tsx test/bench/shim-alone-server.ts <port> <gateway-graphql-url> <data-dir>; the environment configures the
 * listener as it configures the platform (the bench lifts the per-IP limits).
 */
import "reflect-metadata";
import { loadConfig } from "../../subgraphs/shared/config.js";
import { createLog } from "../../subgraphs/shared/observability/log.js";
import { createRestListeners } from "../../rest-shim/server.js";
import type { GraphQLExecutor, OperationResult } from "../../rest-shim/executor.js";
import { instrumentExecutor } from "../../gateway/observability/graphql-metrics.js";
import { MACHINE_OPERATIONS } from "../../rest-shim/routes/markets/machines/machine.routes.js";

const [port, graphqlUrl, dataDir] = process.argv.slice(2);
const operation = MACHINE_OPERATIONS.marketMachines;
const response = await fetch(graphqlUrl!, {
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify({ query: operation.document, operationName: operation.name, variables: { limit: 1 } }),
});
const result = (await response.json()) as OperationResult;
if (!result.data || result.errors) throw new Error(`the gateway did not answer the list: ${JSON.stringify(result)}`);
const text = JSON.stringify(result.data);

const config = loadConfig({ ...process.env, DATA_DIR: dataDir!, MARKETS_PORT: port!, HTTP_PORT: "0", MCR2_PORT: "0" });
const canned: GraphQLExecutor = {
  async execute(called) {
    if (called.name !== operation.name) throw new Error(`the shim-alone server answers ${operation.name} only`);
    return { data: JSON.parse(text) };
  },
};
const rest = createRestListeners({
  config,
  executor: config.requestMetrics ? instrumentExecutor(canned) : canned,
  log: createLog(config),
});
await rest.listen();
console.error("ready");
