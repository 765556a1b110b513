/**
 * `graphql_operations_total{operation, outcome, code}` and `graphql_operation_duration_seconds{operation}` for both
 * doors: the REST shim's named operations (a wrapper around its executor) and GraphQL clients (an Apollo plugin; the
 * operation name is the client's, `anonymous` when it sent none). The outcome is `success` or `error` with the first
 * error's `extensions.code` (bounded: the platform's codes and GraphQL's own).
 *
 * Per operation: two clock readings (`performance.now()`, no bigint), and label objects made once per operation name
 * and outcome. `REQUEST_METRICS=0` leaves both doors uninstrumented (platform.ts, gateway.ts).
 */
import type { ApolloServerPlugin } from "@apollo/server";
import type { GraphQLExecutor } from "../../rest-shim/executor.js";
import { graphqlOperationDuration, graphqlOperations } from "../../subgraphs/shared/observability/metrics.js";

interface OperationLabels {
  duration: { operation: string };
  success: { operation: string; outcome: string; code: string };
  errors: Map<string, { operation: string; outcome: string; code: string }>;
}
const labelSets = new Map<string, OperationLabels>();

function labelsOf(operation: string): OperationLabels {
  let labels = labelSets.get(operation);
  if (labels === undefined) {
    labels = { duration: { operation }, success: { operation, outcome: "success", code: "" }, errors: new Map() };
    labelSets.set(operation, labels);
  }
  return labels;
}

function record(operation: string, started: number, errors: ReadonlyArray<{ extensions?: Record<string, unknown> }> | undefined): void {
  const labels = labelsOf(operation);
  graphqlOperationDuration.observe(labels.duration, (performance.now() - started) / 1000);
  if (errors === undefined || errors.length === 0) {
    graphqlOperations.inc(labels.success);
    return;
  }
  const given = errors[0]?.extensions?.code;
  const code = typeof given === "string" ? given : "NO_CODE";
  let errorLabels = labels.errors.get(code);
  if (errorLabels === undefined) {
    errorLabels = { operation, outcome: "error", code };
    // Codes are the platform's and GraphQL's own, but a remote subgraph could name others: keep the cache bounded.
    if (labels.errors.size < 64) labels.errors.set(code, errorLabels);
  }
  graphqlOperations.inc(errorLabels);
}

export function instrumentExecutor(executor: GraphQLExecutor): GraphQLExecutor {
  return {
    async execute(operation, variables, request) {
      const started = performance.now();
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
      const started = performance.now();
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
