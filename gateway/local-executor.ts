/**
 * The shim's executor in the `all` topology: runs a named operation in process.
 *
 * The shim's operations are fixed, so each is parsed and validated against the gateway's API schema once, on first
 * use, and its path decided then from the gateway's query plan (direct-subgraph.ts): an operation the plan answers with one
 * fetch to one in-process subgraph is executed on that subgraph's schema directly (one execution, compiled where its
 * shape allows, compiled-execution.ts, else graphql-js's; no planning, fetch or result shaping), with the gateway's variable check (before it, or only when the subgraph's own
 * coercion refuses the variables where that refuses all the check would: direct-subgraph.ts) and its error form after;
 * anything else (entities across subgraphs) goes to the gateway's executor (query plan cached by the gateway).
 * Apollo Server's per-request pipeline (hashing, content negotiation, document cache lookups) is for arbitrary
 * client documents and is skipped on both paths; GraphQL clients still go through it on the GraphQL listener.
 */
import { createHash } from "node:crypto";
import { getOperationAST, getVariableValues, parse, validate, type DocumentNode, type GraphQLSchema, type OperationDefinitionNode } from "graphql";
import type { GatewayGraphQLRequestContext } from "@apollo/server-gateway-interface";
import type { SubgraphContext } from "../subgraphs/shared/context.js";
import type { ForwardedRequest, GraphQLExecutor, OperationResult, ShimOperation } from "../rest-shim/executor.js";
import type { RunningGateway } from "./gateway.js";
import { DirectPlanner, gatewayError, type DirectRoute } from "./direct-subgraph.js";
import { compileExecution, type CompiledExecution } from "./compiled-execution.js";

interface PreparedOperation {
  document: DocumentNode;
  operation: OperationDefinitionNode;
  queryHash: string;
  /** Set when the operation runs on one subgraph directly. */
  direct?: DirectRoute;
  /** Why the operation goes through the gateway (diagnostics and tests). */
  gatewayReason?: string;
  /** A direct operation's compiled execution (compiled-execution.ts), or why graphql-js executes it. */
  compiled?: CompiledExecution | string;
}

export interface LocalExecutorOptions {
  /** Run single-subgraph operations directly on their subgraph (default). Off: everything through the gateway. */
  direct?: boolean;
}

export interface LocalExecutor extends GraphQLExecutor {
  /**
   * Each prepared operation's path: the subgraph it runs on directly, or `gateway: <why>`. `operations` are prepared
   * first (an operation that cannot be prepared is left out; its first use throws).
   */
  paths(operations?: Iterable<ShimOperation>): Map<string, string>;
  /** How each prepared direct operation executes: `compiled`, or `graphql-js: <why>`. */
  executions(): Map<string, string>;
}

const silentLogger = { debug() {}, info() {}, warn() {}, error() {} };

export function createLocalExecutor(gateway: RunningGateway, options: LocalExecutorOptions = {}): LocalExecutor {
  const { loaded } = gateway;
  const prepared = new Map<ShimOperation, PreparedOperation>();
  // Built on first use: planning costs CPU that a process serving few shim routes (or none) should not pay at start.
  let planner: DirectPlanner | undefined;
  const plannerOf = () => (planner ??= new DirectPlanner(gateway.queryPlanner, gateway.supergraphSdl, loaded.schema, gateway.localSources));

  function prepare(op: ShimOperation): PreparedOperation {
    let entry = prepared.get(op);
    if (entry) return entry;
    const document = parse(op.document);
    const errors = validate(loaded.schema, document);
    if (errors.length > 0) throw new Error(`operation ${op.name} does not validate: ${errors[0]!.message}`);
    // One operation per document, so the gateway needs no operation name: it then keys its query-plan cache by the
    // document hash alone instead of hashing hash + name on every request.
    const operation = getOperationAST(document);
    if (!operation || operation.name?.value !== op.name) {
      throw new Error(`the document of ${op.name} must hold exactly that one operation`);
    }
    entry = { document, operation, queryHash: createHash("sha256").update(op.document).digest("hex") };
    const decision = options.direct === false ? "direct path off" : plannerOf().decide(document, operation, op.document);
    if (typeof decision === "string") entry.gatewayReason = decision;
    else {
      entry.direct = decision;
      entry.compiled = compileExecution(decision.source.subgraphSchema, document, operation);
    }
    prepared.set(op, entry);
    return entry;
  }

  /** The gateway's executor path (validateIncomingRequest, then executeQueryPlan) compressed to its one fetch. */
  async function executeDirect(entry: PreparedOperation, direct: DirectRoute, variables: Record<string, unknown>, context: SubgraphContext): Promise<OperationResult> {
    if (!direct.coercionCovers) {
      const errors = refusedVariables(loaded.schema, entry.operation, variables);
      if (errors) return { errors };
    }
    // The gateway's fetch leaves out variables whose value is undefined (the subgraph then sees them absent).
    const defined = definedOnly(variables);
    const executed = await (typeof entry.compiled === "function" ? entry.compiled(defined, context) : direct.source.execute(entry.document, defined, undefined, context));
    if (executed.data === undefined && direct.coercionCovers) {
      // Refused before execution (graphql-js gives no data then): when the gateway's check refuses the variables too,
      // its errors are the answer, as they would have been before the fetch.
      const errors = refusedVariables(loaded.schema, entry.operation, variables);
      if (errors) return { errors };
    }
    const result = direct.source.mask(executed);
    if (!result.errors) return result;
    return { errors: result.errors.map((error) => gatewayError(error, direct.serviceName)), data: result.data };
  }

  return {
    paths(operations = []) {
      for (const op of operations) {
        try {
          prepare(op);
        } catch {
          // Left unprepared: its first use throws the same error.
        }
      }
      const paths = new Map<string, string>();
      for (const [op, entry] of prepared) paths.set(op.name, entry.direct ? entry.direct.serviceName : `gateway: ${entry.gatewayReason}`);
      return paths;
    },
    executions() {
      const executions = new Map<string, string>();
      for (const [op, entry] of prepared) {
        if (entry.compiled !== undefined) executions.set(op.name, typeof entry.compiled === "function" ? "compiled" : `graphql-js: ${entry.compiled}`);
      }
      return executions;
    },
    async execute(op: ShimOperation, variables: Record<string, unknown>, request: ForwardedRequest) {
      const entry = prepare(op);
      const context: SubgraphContext = { clientIp: request.clientIp, authorization: request.authorization, requestId: request.requestId };
      if (entry.direct) return executeDirect(entry, entry.direct, variables, context);
      const { document, operation, queryHash } = entry;
      const requestContext = {
        request: { query: op.document, variables },
        response: { http: { headers: new Map<string, string>() } },
        logger: silentLogger,
        schema: loaded.schema,
        context,
        queryHash,
        document,
        source: op.document,
        operationName: null,
        operation,
        metrics: {},
        requestIsBatched: false,
      } as unknown as GatewayGraphQLRequestContext<SubgraphContext>;
      return (await loaded.executor(requestContext)) as OperationResult;
    },
  };
}

/** The gateway's variable check (validateIncomingRequest): its errors, or undefined when it takes the values. */
function refusedVariables(schema: GraphQLSchema, operation: OperationDefinitionNode, variables: Record<string, unknown>) {
  if (!operation.variableDefinitions?.length) return undefined;
  return getVariableValues(schema, operation.variableDefinitions, variables).errors;
}

function definedOnly(variables: Record<string, unknown>): Record<string, unknown> {
  for (const key in variables) {
    if (variables[key] === undefined) return Object.fromEntries(Object.entries(variables).filter(([, value]) => value !== undefined));
  }
  return variables;
}
