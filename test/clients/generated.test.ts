/**
 * The client's generated sources (clients/typescript/src/generated/) are what `npm run client:generate` writes from
 * the committed OpenAPI documents: a route, schema or error example changed without regenerating fails here.
 * The types are also read the way openapi-fetch reads them (test/clients/package.test.ts type-checks calls).
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { clientSources, CLIENT_GENERATED_DIR } from "../../scripts/client-generate.js";

describe("the client's generated sources", () => {
  it("equal what npm run client:generate writes for docs/openapi/", async () => {
    const files = await clientSources();
    expect(files.map(([file]) => file)).toEqual(["http", "mcr2", "markets", "codes"].map((name) => `${CLIENT_GENERATED_DIR}/${name}.ts`));
    for (const [file, text] of files) expect(readFileSync(file, "utf8"), `${file} is stale: run npm run client:generate`).toBe(text);
  });

  it("type every response under application/json and no free-form object as an empty record", () => {
    const markets = readFileSync(`${CLIENT_GENERATED_DIR}/markets.ts`, "utf8");
    expect(markets).toContain('"application/json": {');
    expect(markets).not.toMatch(/"application\/json;/);
    // `Record<string, never>` only for the document-level sections that are empty (webhooks, $defs).
    const empty = markets.split("\n").filter((line) => line.includes("Record<string, never>"));
    expect(empty.map((line) => line.trim())).toEqual(["export type webhooks = Record<string, never>;", "export type $defs = Record<string, never>;"]);
  });
});
