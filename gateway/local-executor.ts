/**
 * The shim's executor in the `all` topology: runs the named operation on the in-process gateway server.
 */
import type { ApolloServer } from "@apollo/server";
import type { SubgraphContext } from "../subgraphs/shared/context.js";
import type { ForwardedRequest, GraphQLExecutor, OperationResult, ShimOperation } from "../rest-shim/executor.js";

export function createLocalExecutor(server: ApolloServer<SubgraphContext>): GraphQLExecutor {
  return {
    async execute(operation: ShimOperation, variables: Record<string, unknown>, request: ForwardedRequest) {
      const response = await server.executeOperation(
        { query: operation.document, operationName: operation.name, variables },
        { contextValue: { clientIp: request.clientIp, authorization: request.authorization } },
      );
      if (response.body.kind !== "single") throw new Error("incremental delivery is not used by the shim");
      return response.body.singleResult as OperationResult;
    },
  };
}
