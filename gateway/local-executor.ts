/**
 * The shim's executor in the `all` topology: runs a named operation on the in-process gateway.
 *
 * The shim's operations are fixed, so each is parsed and validated against the gateway's API schema once, on first
 * use, and then handed straight to the gateway's executor (query plan cached by the gateway). Apollo Server's
 * per-request pipeline (hashing, content negotiation, document cache lookups) is for arbitrary client documents and
 * is skipped here; GraphQL clients still go through it on the GraphQL listener.
 */
import { createHash } from "node:crypto";
import { getOperationAST, parse, validate, type DocumentNode, type OperationDefinitionNode } from "graphql";
import type { GatewayGraphQLRequestContext } from "@apollo/server-gateway-interface";
import type { SubgraphContext } from "../subgraphs/shared/context.js";
import type { ForwardedRequest, GraphQLExecutor, OperationResult, ShimOperation } from "../rest-shim/executor.js";
import type { RunningGateway } from "./gateway.js";

interface PreparedOperation {
  document: DocumentNode;
  operation: OperationDefinitionNode;
  queryHash: string;
}

const silentLogger = { debug() {}, info() {}, warn() {}, error() {} };

export function createLocalExecutor({ loaded }: RunningGateway): GraphQLExecutor {
  const prepared = new Map<ShimOperation, PreparedOperation>();

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
    prepared.set(op, entry);
    return entry;
  }

  return {
    async execute(op: ShimOperation, variables: Record<string, unknown>, request: ForwardedRequest) {
      const { document, operation, queryHash } = prepare(op);
      const context: SubgraphContext = { clientIp: request.clientIp, authorization: request.authorization, requestId: request.requestId };
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
