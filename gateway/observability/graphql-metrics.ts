/**
 * `graphql_operations_total{operation, outcome, code}` and `graphql_operation_duration_seconds{operation}` for both
 * doors: the REST shim's named operations (a wrapper around its executor) and GraphQL clients (an Apollo plugin; the
 * operation name is the client's, `anonymous` when it sent none). The outcome is `success` or `error` with the first
 * error's `extensions.code` (bounded: the platform's codes and GraphQL's own).
 */
import type { ApolloServerPlugin } from "@apollo/server";
import type { GraphQLExecutor } from "../../rest-shim/executor.js";
import { graphqlOperationDuration, graphqlOperations, secondsSince } from "../../subgraphs/shared/observability/metrics.js";

function record(operation: string, started: bigint, errors: ReadonlyArray<{ extensions?: Record<string, unknown> }> | undefined): void {
  graphqlOperationDuration.observe({ operation }, secondsSince(started));
  const code = errors?.[0]?.extensions?.code;
  if (errors === undefined || errors.length === 0) graphqlOperations.inc({ operation, outcome: "success", code: "" });
  else graphqlOperations.inc({ operation, outcome: "error", code: typeof code === "string" ? code : "NO_CODE" });
}

export function instrumentExecutor(executor: GraphQLExecutor): GraphQLExecutor {
  return {
    async execute(operation, variables, request) {
      const started = process.hrtime.bigint();
      try {
        const result = await executor.execute(operation, variables, request);
        record(operation.name, started, result.errors);
        return result;
      } catch (error) {
        record(operation.name, started, [{ extensions: { code: "UNAVAILABLE" } }]);
        throw error;
      }
    },
    close: executor.close?.bind(executor),
  };
}

/** Names longer than this are client-chosen noise: counted under `other` to bound the label's cardinality. */
const MAX_NAME = 64;

export function operationMetricsPlugin<TContext extends object>(): ApolloServerPlugin<TContext> {
  return {
    async requestDidStart() {
      const started = process.hrtime.bigint();
      return {
        async willSendResponse({ operationName, response }) {
          const name = operationName ?? "anonymous";
          const body = response.body.kind === "single" ? response.body.singleResult : undefined;
          record(name.length > MAX_NAME ? "other" : name, started, body?.errors);
        },
      };
    },
  };
}
