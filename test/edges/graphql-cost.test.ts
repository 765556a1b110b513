/**
 * What one GraphQL operation may cost is bounded before it runs (gateway/operation-limits.ts): tokens, depth,
 * aliases, cost and directives, each refused with a 400 whose message names the limit, and nothing executed. The
 * amplifying operations from the field (thousands of aliases of `readiness` or `health`) are refused at once while
 * REST reads in parallel keep being served.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { graphql, startTestPlatform, type TestPlatform } from "../support/platform.js";

let p: TestPlatform;
beforeAll(async () => {
  p = await startTestPlatform({
    // The platform's schema is shallow and cheap: small limits so real operations can pass them.
    GRAPHQL_MAX_DEPTH: "3",
    GRAPHQL_MAX_COST: "200",
    GRAPHQL_MAX_DIRECTIVES: "2",
  });
}, 300_000);
afterAll(() => p?.close());

const aliases = (count: number, field: string) => `{${Array.from({ length: count }, (_, i) => `a${i}:${field}`).join(" ")}}`;

/** A refusal before execution: 400, no data, the one error naming its limit. */
function expectRefused(answer: Awaited<ReturnType<typeof graphql>>, code: string, message: RegExp) {
  expect(answer.status).toBe(400);
  expect(answer.body.data).toBeUndefined();
  expect(answer.body.errors).toHaveLength(1);
  expect(answer.body.errors![0]!.extensions?.code).toBe(code);
  expect(answer.body.errors![0]!.message).toMatch(message);
}

describe("amplifying operations", () => {
  // No elapsed-time bounds (a loaded machine would break them): the error naming the token limit proves the parser stopped at token 1,001
  // instead of reading the whole document; speed belongs in `npm run bench`, and a hang fails on the test timeout.
  it("3,000 aliases of readiness: 400 naming the token limit while REST reads in parallel are served", async () => {
    const [amplified, ...reads] = await Promise.all([
      graphql(p.graphql, aliases(3000, "readiness { status }")),
      ...Array.from({ length: 5 }, () => fetch(`${p.http}/v1/verify/machines/1`)),
    ]);
    expectRefused(amplified, "GRAPHQL_PARSE_FAILED", /more th\w+ 1000 tokens/);
    expect(reads.map((read) => read.status)).toEqual([200, 200, 200, 200, 200]);
  });

  it("11,000 aliases of health: refused after 1,000 tokens, not parsed to the end", async () => {
    const answer = await graphql(p.graphql, aliases(11_000, "health{status}"));
    expectRefused(answer, "GRAPHQL_PARSE_FAILED", /1000 tokens/);
  });
});

describe("each limit, just over it", () => {
  it("aliases: 16 aliases of health", async () => {
    expectRefused(await graphql(p.graphql, aliases(16, "health { status }")), "GRAPHQL_VALIDATION_FAILED", /Aliases limit of 15 exceeded, found 16/);
    const fifteen = await graphql(p.graphql, aliases(15, "health { status }"));
    expect(fifteen.status).toBe(200);
    expect(Object.keys(fifteen.body.data)).toHaveLength(15);
  });

  it("depth: four levels where three are allowed", async () => {
    const deep = `{ machine(machineId: "1") { verification { verification { kyb { status } } } } }`;
    expectRefused(await graphql(p.graphql, deep), "GRAPHQL_VALIDATION_FAILED", /depth limit of 3 exceeded/);
    const shallow = await graphql(p.graphql, `{ machine(machineId: "1") { verification { machineId } } }`);
    expect(shallow.body).toEqual({ data: { machine: { verification: { machineId: "1" } } } });
  });

  it("cost: fifteen full readiness reports cost more than GRAPHQL_MAX_COST", async () => {
    const report = "readiness { status rpcConnected contracts { identityRegistry identityStaking eventRegistry machineNft didRegistry adminFlags } }";
    expectRefused(await graphql(p.graphql, aliases(15, report)), "GRAPHQL_VALIDATION_FAILED", /Query Cost limit of 200 exceeded, found \d+/);
    expect((await graphql(p.graphql, aliases(5, report))).status).toBe(200);
  });

  it("directives: three where two are allowed", async () => {
    const directed = `{ health @include(if: true) { status @include(if: true) } readiness @skip(if: false) { status } }`;
    expectRefused(await graphql(p.graphql, directed), "GRAPHQL_VALIDATION_FAILED", /Directives limit of 2 exceeded/);
  });

  it("batched requests are not accepted (one operation per request)", async () => {
    const response = await fetch(p.graphql, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify([{ query: "{ health { status } }" }, { query: "{ health { status } }" }]),
    });
    expect(response.status).toBe(400);
  });
});
