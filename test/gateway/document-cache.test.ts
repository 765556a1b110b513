/**
 * The in-process data source keeps parsed subgraph fetches, bounded by bytes (gateway/data-sources.ts): clients
 * sending many large distinct operations cannot grow it, and the small fixed fetches the shim's operations produce
 * stay cached while junk passes through. Runs the real ratings subgraph schema.
 */
import type { GraphQLDataSourceProcessOptions } from "@apollo/gateway";
import type { GraphQLSchema } from "graphql";
import { beforeAll, describe, expect, it } from "vitest";
import { CachedLocalDataSource, DEFAULT_DOCUMENT_CACHE } from "../../gateway/data-sources.js";
import { buildRatingsSchema } from "../../subgraphs/ratings/schema.js";

let schema: GraphQLSchema;
beforeAll(async () => {
  schema = await buildRatingsSchema();
});

const HOT = "{ health { status } }";

function fetchOf(query: string) {
  return { request: { query, variables: {} }, context: {} } as unknown as GraphQLDataSourceProcessOptions<any>;
}

/** A valid fetch of `bytes` length, distinct per `n` (a comment pads it). */
const padded = (n: number, bytes: number) => `# ${n} ${"x".repeat(bytes)}\n{ health { status } }`;

describe("CachedLocalDataSource", () => {
  it("does not keep fetches larger than an entry may be: 20 distinct 60 KB fetches leave the cache empty", async () => {
    const source = new CachedLocalDataSource(schema, () => {});
    for (let i = 0; i < 20; i++) {
      const result = await source.process(fetchOf(padded(i, 60 * 1024)));
      expect(result.data).toEqual({ health: { status: "OK" } });
    }
    expect(source.cachedBytes).toBe(0);
  });

  it("holds at most maxBytes of fetch text, evicting the least recently used; a hot fetch stays", async () => {
    const source = new CachedLocalDataSource(schema, () => {});
    await source.process(fetchOf(HOT));
    for (let i = 0; i < 2000; i++) {
      await source.process(fetchOf(padded(i, 4000)));
      if (i % 50 === 0) await source.process(fetchOf(HOT));
      expect(source.cachedBytes).toBeLessThanOrEqual(DEFAULT_DOCUMENT_CACHE.maxBytes);
    }
    expect(source.isCached(HOT)).toBe(true);
    expect(source.isCached(padded(0, 4000))).toBe(false);
    expect(source.cachedBytes).toBeGreaterThan(DEFAULT_DOCUMENT_CACHE.maxBytes / 2);
  });

  it("masks a failing fetch like a subgraph server would (no internal message leaves it)", async () => {
    const reported: unknown[] = [];
    const source = new CachedLocalDataSource(schema, (error) => reported.push(error));
    // `readiness` needs the chain, which this schema was built without: the resolver fails internally.
    const result = await source.process(fetchOf("{ readiness { status } }"));
    expect(result.errors).toEqual([{ message: "Internal server error.", locations: [{ line: 1, column: 3 }], path: ["readiness"], extensions: { code: "INTERNAL_SERVER_ERROR" } }]);
    expect(reported).toHaveLength(1);
  });
});
