/**
 * Data sources between the gateway and its subgraphs.
 *
 * In-process: Apollo's `LocalGraphQLDataSource` parses and validates every subgraph fetch (~300 us for a federated
 * schema) although the query planner sends the same few fetch strings again and again. `CachedLocalDataSource`
 * keeps the parsed, validated document per fetch string, so a warm fetch only executes. The cache is bounded by the
 * bytes of the fetch strings it holds (least recently used first out) and skips fetches larger than a shim
 * operation ever produces, so clients sending many large distinct queries cannot grow it. Its errors leave it masked
 * as a subgraph server's would (error-mask.ts).
 *
 * Remote: `RemoteGraphQLDataSource` forwarding the request facts subgraphs rely on (Authorization, client IP) with
 * the internal token that makes the subgraph role believe them.
 */
import { RemoteGraphQLDataSource, type GraphQLDataSource, type GraphQLDataSourceProcessOptions } from "@apollo/gateway";
import { execute, parse, validate, type DocumentNode, type ExecutionResult, type GraphQLSchema } from "graphql";
import { CLIENT_IP_HEADER, INTERNAL_TOKEN_HEADER, REQUEST_ID_HEADER, type SubgraphContext } from "../subgraphs/shared/context.js";
import { maskError } from "../subgraphs/shared/error-mask.js";

export interface DocumentCacheLimits {
  /** Total length of the cached fetch strings. */
  maxBytes: number;
  /** Longer fetch strings are parsed every time (the shim's are a few hundred bytes). */
  maxEntryBytes: number;
}

export const DEFAULT_DOCUMENT_CACHE: DocumentCacheLimits = { maxBytes: 256 * 1024, maxEntryBytes: 8 * 1024 };

type Context = SubgraphContext & Record<string, any>;

export class CachedLocalDataSource implements GraphQLDataSource<Context> {
  /** Insertion order is recency order: a hit moves its entry to the end, eviction takes from the front. */
  private readonly documents = new Map<string, DocumentNode>();
  private bytes = 0;

  constructor(
    private readonly schema: GraphQLSchema,
    private readonly report: (error: unknown) => void,
    private readonly limits: DocumentCacheLimits = DEFAULT_DOCUMENT_CACHE,
  ) {}

  /** Total length of the cached fetch strings (for tests and diagnostics). */
  get cachedBytes(): number {
    return this.bytes;
  }

  isCached(source: string): boolean {
    return this.documents.has(source);
  }

  async process({ request, context }: GraphQLDataSourceProcessOptions<Context>) {
    const source = request.query!;
    let document = this.documents.get(source);
    if (document) {
      this.documents.delete(source);
      this.documents.set(source, document);
    } else {
      const parsed = parse(source);
      const errors = validate(this.schema, parsed);
      if (errors.length > 0) return { errors: errors.map((error) => maskError(error.toJSON(), error, this.report)) };
      this.remember(source, parsed);
      document = parsed;
    }
    return this.run(document, request.variables, request.operationName, context) as any;
  }

  /**
   * Executes a document already parsed and validated against this subgraph's schema, its errors masked: what a
   * gateway fetch gets back, and what the shim's direct path (local-executor.ts) runs for single-subgraph operations.
   */
  async run(document: DocumentNode, variables: Record<string, unknown> | undefined, operationName: string | undefined | null, context: Context) {
    return this.mask(await this.execute(document, variables, operationName, context));
  }

  /** `run` without the masking: graphql-js's own result, for a caller that looks at it before `mask`. */
  execute(document: DocumentNode, variables: Record<string, unknown> | undefined, operationName: string | undefined | null, context: Context) {
    return execute({ schema: this.schema, document, variableValues: variables, operationName, contextValue: context });
  }

  /** The result with its errors masked (each masked error reported), as `run` returns it. */
  mask(result: ExecutionResult) {
    if (!result.errors) return result as { data: Record<string, unknown>; errors?: undefined };
    return { ...result, errors: result.errors.map((error) => maskError(error.toJSON(), error, this.report)) };
  }

  /** The schema this source executes against. */
  get subgraphSchema(): GraphQLSchema {
    return this.schema;
  }

  private remember(source: string, document: DocumentNode): void {
    if (source.length > this.limits.maxEntryBytes) return;
    this.documents.set(source, document);
    this.bytes += source.length;
    for (const [oldest] of this.documents) {
      if (this.bytes <= this.limits.maxBytes) break;
      this.documents.delete(oldest);
      this.bytes -= oldest.length;
    }
  }
}

export class ForwardingRemoteDataSource extends RemoteGraphQLDataSource<Context> {
  constructor(url: string, private readonly internalToken: string) {
    super({ url });
  }

  override willSendRequest({ request, context }: any): void {
    const ctx = context as SubgraphContext;
    request.http.headers.set(INTERNAL_TOKEN_HEADER, this.internalToken);
    if (ctx.authorization) request.http.headers.set("authorization", ctx.authorization);
    if (ctx.clientIp) request.http.headers.set(CLIENT_IP_HEADER, ctx.clientIp);
    if (ctx.requestId) request.http.headers.set(REQUEST_ID_HEADER, ctx.requestId);
  }
}
