/**
 * The typed GraphQL documents (clients/graphql/generated/) are what `npm run graphql:generate` writes for the example
 * operations against the committed supergraph: a schema change that breaks an operation, or one not regenerated,
 * fails here. test/clients/flows.test.ts runs the documents against the gateway.
 */
import { readFileSync } from "node:fs";
import { generate } from "@graphql-codegen/cli";
import { describe, expect, it } from "vitest";
import config from "../../clients/graphql/codegen.js";

describe("typed GraphQL documents", () => {
  it("equal what graphql-codegen's client preset writes from the supergraph", async () => {
    const outputs: Array<{ filename: string; content: string }> = await generate({ ...config, cwd: process.cwd() }, false);
    expect(outputs.map((o) => o.filename).sort()).toEqual(["gql.ts", "graphql.ts", "index.ts"].map((name) => `clients/graphql/generated/${name}`));
    for (const output of outputs) expect(readFileSync(output.filename, "utf8"), `${output.filename} is stale: run npm run graphql:generate`).toBe(output.content);
  });
});
