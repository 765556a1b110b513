/**
 * `graphql_operations_total{operation, outcome, code}` and `graphql_operation_duration_seconds{operation}` for both
 * doors: the REST shim's named operations (a wrapper around its executor) and GraphQL clients (an Apollo plugin; the
 * operation name is the client's, `anonymous` when it sent none). The outcome is `success` or `error` with the first
 * error's `extensions.code` (bounded: the platform's codes and GraphQL's own).
 *
 * Per operation: two clock readings (`performance.now()`, no bigint) and two additions to series made once per
 * operation name and outcome. `REQUEST_METRICS=0` leaves both doors uninstrumented (platform.ts, gateway.ts).
 */
import type { ApolloServerPlugin } from "@apollo/server";
import type { GraphQLExecutor } from "../../rest-shim/executor.js";
import { graphqlOperationDuration, graphqlOperations } from "../../subgraphs/shared/observability/metrics.js";
import type { CounterSeries, HistogramSeries } from "../../subgraphs/shared/observability/series.js";

/** The metric series of one operation name, made once (series.ts: no label hashing per operation). */
interface OperationSeries {
  duration: HistogramSeries;
  success: CounterSeries;
  errors: Map<string, CounterSeries>;
}
const seriesSets = new Map<string, OperationSeries>();

function seriesOf(operation: string): OperationSeries {
  let series = seriesSets.get(operation);
  if (series === undefined) {
    series = {
      duration: graphqlOperationDuration.series({ operation }),
      success: graphqlOperations.series({ operation, outcome: "success", code: "" }),
      errors: new Map(),
    };
    seriesSets.set(operation, series);
  }
  return series;
}

function record(operation: string, started: number, errors: ReadonlyArray<{ extensions?: Record<string, unknown> }> | undefined): void {
  const series = seriesOf(operation);
  graphqlOperationDuration.observe(series.duration, (performance.now() - started) / 1000);
  if (errors === undefined || errors.length === 0) {
    series.success.value++;
    return;
  }
  const given = errors[0]?.extensions?.code;
  const code = typeof given === "string" ? given : "NO_CODE";
  let errorSeries = series.errors.get(code);
  if (errorSeries === undefined) {
    errorSeries = graphqlOperations.series({ operation, outcome: "error", code });
    // Codes are the platform's and GraphQL's own, but a remote subgraph could name others: keep the cache bounded.
    if (series.errors.size < 64) series.errors.set(code, errorSeries);
  }
  errorSeries.value++;
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
