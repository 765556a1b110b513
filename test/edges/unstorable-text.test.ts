/**
 * Text PostgreSQL cannot store (U+0000; a lone UTF-16 surrogate, which has no UTF-8 form) is refused as input with the
 * family's validation code, over real sockets on both doors, and nothing is written:
 * - REST bodies through the one strict JSON parser (subgraphs/shared/json/strict.ts), escaped or not, in a value or
 *   an object member name at any depth;
 * - GraphQL arguments of the markets subgraph (variables and literals) and REST query parameters, which reach it as
 *   variables, through the argument check of subgraphs/shared/federation.ts;
 * - verify and ratings inputs, each matched against a strict pattern before any database access, and verify's token
 *   still checked first on GraphQL as on REST.
 * Path parameters are passed on as sent, not percent-decoded (rest-shim/route-definition.ts), so `%00` in a path is
 * the three characters, never a NUL.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { holdsUnstorableText, isStorableText } from "../../subgraphs/shared/json/storable-text.js";
import { graphql } from "../support/platform.js";
import { get, postJson, putJson, send, type HttpAnswer } from "../support/http.js";
import { seedBoundMachine } from "../support/machine-sessions.js";
import { challengeRowCount, expectVerifyError } from "../support/verify.js";
import { api, expectMarketsError, prismaOf, startMarketsPlatform, PLATFORM_START_TIMEOUT_MS, type MarketsPlatform } from "../markets/helpers.js";
import { CREATE_CHALLENGE, postChallenge, postEvidence } from "../verify/helpers.js";

let p: MarketsPlatform;
let machine: string;

beforeAll(async () => {
  p = await startMarketsPlatform();
  machine = (await seedBoundMachine(p)).id;
}, PLATFORM_START_TIMEOUT_MS);
afterAll(() => p?.close());

/** Row counts of every table these requests could write. */
async function rowCounts() {
  const prisma = prismaOf(p);
  return {
    nodes: await prisma.marketsGraphNode.count(),
    policies: await prisma.marketsPolicy.count(),
    audit: await prisma.marketAuditEvent.count(),
    challenges: await challengeRowCount(p),
    evidence: await prisma.verifyEvidence.count(),
    twoFactor: await prisma.faucetTwoFactor.count(),
    fundings: await prisma.faucetRequest.count(),
    monetization: await prisma.monetizationDecision.count(),
  };
}

/** The GraphQL error codes of an answer (the gateway answers 200 with `errors`). */
async function graphqlCodes(query: string, variables: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
  const answer = await graphql(p.graphql, query, variables, headers);
  expect(answer.status).toBe(200);
  return answer.body.errors?.map((error) => error.extensions?.code) ?? [];
}

/** A GraphQL request whose body is the given text, for variables `JSON.stringify` would not write (raw characters). */
async function graphqlText(body: string): Promise<string[]> {
  const response = await fetch(p.graphql, { method: "POST", headers: { "content-type": "application/json" }, body });
  expect(response.status).toBe(200);
  const parsed = (await response.json()) as { errors?: Array<{ extensions?: { code?: string } }> };
  return parsed.errors?.map((error) => error.extensions?.code ?? "") ?? [];
}

describe("storable text", () => {
  it("is any string without U+0000 or a lone surrogate; a surrogate pair and other control characters are fine", () => {
    for (const ok of ["", "plain", "tab\tand\u0001", "emoji \ud83d\ude00", "\uffff"]) expect(isStorableText(ok), JSON.stringify(ok)).toBe(true);
    for (const bad of ["\u0000", "a\u0000b", "\ud800", "x\udc00", "\ude00\ud83d", "\ud83d"]) expect(isStorableText(bad), JSON.stringify(bad)).toBe(false);
    expect(holdsUnstorableText({ a: [{ b: "ok" }], c: 1, d: null })).toBe(false);
    expect(holdsUnstorableText({ a: [{ b: "\u0000" }] })).toBe(true);
    expect(holdsUnstorableText({ a: { "k\ud800": 1 } })).toBe(true);
    // Nesting no call stack could walk recursively.
    let deep: unknown = "\u0000";
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(holdsUnstorableText(deep)).toBe(true);
  });
});

describe("markets: REST bodies", () => {
  // The machine is bound in beforeAll: its path is filled in when each case runs.
  const nodes = () => "/machines/{machine}/graph/nodes";
  // JSON text as sent: `\\u0000` is the six-character escape, `\u0000` the raw character (refused as a control
  // character by RFC 8259 already).
  const bodies: [string, string, string][] = [
    ["a NUL in a graph label (escaped)", nodes(), '{"label":"Drive\\u0000unit"}'],
    ["a NUL in a data member name, nested", nodes(), '{"label":"Arm","data":{"nested":{"k\\u0000":1}}}'],
    ["a NUL in a data value inside a list", nodes(), '{"label":"Arm","data":{"a":["ok","\\u0000"]}}'],
    ["a lone high surrogate in a label", nodes(), '{"label":"\\ud800"}'],
    ["a lone low surrogate in a data member name", nodes(), '{"label":"Arm","data":{"x\\udc00":true}}'],
    ["a reversed surrogate pair", nodes(), '{"label":"\\ude00\\ud83d"}'],
    ["a NUL in a policy name", "/policies", '{"name":"policy\\u0000"}'],
    ["a NUL in a policy rule member name", "/policies", '{"name":"p","rules":{"\\u0000":"x"}}'],
  ];
  it.each(bodies)("%s is 400 VALIDATION_ERROR and writes nothing", async (_label, path, body) => {
    const before = await rowCounts();
    expectMarketsError(await api(p, "POST", path.replace("{machine}", machine), body), 400, "VALIDATION_ERROR");
    expect(await rowCounts()).toEqual(before);
  });

  it("a surrogate pair is stored as sent (the check does not refuse astral characters)", async () => {
    const before = await prismaOf(p).marketsPolicy.count();
    const answer = await api(p, "POST", "/policies", '{"name":"rocket \\ud83d\\ude80"}');
    expect(answer.status, answer.text).toBe(201);
    expect(answer.json().item.name).toBe("rocket \u{1f680}");
    expect(await prismaOf(p).marketsPolicy.count()).toBe(before + 1);
  });
});

describe("markets: REST query and path parameters", () => {
  it.each(["machineId=%00", "kind=a%00b", "actorId=x%00"])("GET /audit-events?%s is 400 VALIDATION_ERROR", async (query) => {
    expectMarketsError(await api(p, "GET", `/audit-events?${query}`), 400, "VALIDATION_ERROR");
  });

  it("GET /policies?status=%00 is 400 VALIDATION_ERROR", async () => {
    expectMarketsError(await api(p, "GET", "/policies?status=%00"), 400, "VALIDATION_ERROR");
  });

  it("`%00` in a path is the three characters: an unknown machine, not a NUL", async () => {
    expectMarketsError(await api(p, "GET", "/machines/%00/graph"), 404, "NOT_FOUND");
    const before = await rowCounts();
    // A write needs the machine's authority first: no machine's session names `%00`.
    expectMarketsError(await api(p, "POST", "/machines/%00/graph/nodes", { label: "x" }), 401, "MACHINE_IDENTITY_PROOF_REQUIRED");
    expect(await rowCounts()).toEqual(before);
  });
});

describe("markets: GraphQL arguments", () => {
  const CREATE_NODE = `mutation ($m: String!, $input: GraphNodeInput!) { createGraphNode(machineId: $m, input: $input) { id } }`;

  it("a NUL in a label literal is VALIDATION_ERROR and writes nothing", async () => {
    const before = await rowCounts();
    const codes = await graphqlCodes(`mutation ($m: String!) { createGraphNode(machineId: $m, input: { label: "a\\u0000b" }) { id } }`, { m: machine });
    expect(codes).toEqual(["VALIDATION_ERROR"]);
    expect(await rowCounts()).toEqual(before);
  });

  it("a NUL in a label variable, or in a data member name at any depth, is VALIDATION_ERROR and writes nothing", async () => {
    const before = await rowCounts();
    expect(await graphqlCodes(CREATE_NODE, { m: machine, input: { label: "a\u0000b" } })).toEqual(["VALIDATION_ERROR"]);
    expect(await graphqlCodes(CREATE_NODE, { m: machine, input: { label: "x", data: { deep: { "k\u0000": 1 } } } })).toEqual(["VALIDATION_ERROR"]);
    expect(await graphqlCodes(CREATE_NODE, { m: machine, input: { label: "x", data: { list: [{ v: "\u0000" }] } } })).toEqual(["VALIDATION_ERROR"]);
    expect(await rowCounts()).toEqual(before);
  });

  it("lone surrogates in variables (as JSON escapes) are VALIDATION_ERROR and write nothing", async () => {
    const before = await rowCounts();
    const query = JSON.stringify(CREATE_NODE);
    expect(await graphqlText(`{"query":${query},"variables":{"m":"${machine}","input":{"label":"\\ud800"}}}`)).toEqual(["VALIDATION_ERROR"]);
    expect(await graphqlText(`{"query":${query},"variables":{"m":"${machine}","input":{"label":"x","data":{"\\udfff":1}}}}`)).toEqual(["VALIDATION_ERROR"]);
    expect(await rowCounts()).toEqual(before);
  });

  it("a NUL in a query argument or in an ID is VALIDATION_ERROR", async () => {
    expect(await graphqlCodes(`query { auditEvents(machineId: "\\u0000") { items { id } } }`)).toEqual(["VALIDATION_ERROR"]);
    expect(await graphqlCodes(`query ($id: String!) { marketPolicy(policyId: $id) { id } }`, { id: "pol_\u0000" })).toEqual(["VALIDATION_ERROR"]);
    const before = await rowCounts();
    expect(await graphqlCodes(`mutation ($i: MarketPolicyInput!) { createMarketPolicy(input: $i) { id } }`, { i: { name: "p", machineIds: ["\u0000"] } })).toEqual([
      "VALIDATION_ERROR",
    ]);
    expect(await rowCounts()).toEqual(before);
  });
});

describe("verify: the token first, then INVALID_REQUEST or INVALID_MACHINE_ID", () => {
  it("a NUL in the challenge body is 400 INVALID_REQUEST and stores no challenge (REST and GraphQL)", async () => {
    const before = await rowCounts();
    expectVerifyError(await postChallenge(p, '{"machineId":"2\\u0000"}'), 400, "INVALID_REQUEST");
    expectVerifyError(await postChallenge(p, '{"machine\\u0000Id":"2"}'), 400, "INVALID_REQUEST");
    expect(await graphqlCodes(CREATE_CHALLENGE, { id: "2\u0000" }, { authorization: "Bearer dev-onboarding-token" })).toEqual(["INVALID_REQUEST"]);
    expect(await rowCounts()).toEqual(before);
  });

  it("without the token the answer is 401 on both doors, as for any other body", async () => {
    const answer = await send(p.challengeUrl, { method: "POST", headers: { "content-type": "application/json" }, body: '{"machineId":"2\\u0000"}' });
    expectVerifyError(answer, 401, "ONBOARDING_AUTH_REQUIRED");
    expect(await graphqlCodes(CREATE_CHALLENGE, { id: "2\u0000" })).toEqual(["ONBOARDING_AUTH_REQUIRED"]);
  });

  it("a NUL or lone surrogate in evidence is 400 INVALID_REQUEST and stores nothing", async () => {
    const before = await rowCounts();
    for (const body of ['{"a":"\\u0000"}', '{"\\ud800":"x"}']) expectVerifyError(await postEvidence(p, body), 400, "INVALID_REQUEST");
    expect(await rowCounts()).toEqual(before);
  });

  it("a NUL in the machine ID of the read route (GraphQL) is 400 INVALID_MACHINE_ID", async () => {
    expect(await graphqlCodes(`query ($id: String!) { machineVerification(machineId: $id) { machineId } }`, { id: "2\u0000" })).toEqual([
      "INVALID_MACHINE_ID",
    ]);
    expectVerifyError(await get(`${p.http}/v1/verify/machines/2%00`), 400, "INVALID_MACHINE_ID");
  });
});

describe("ratings: each input's validation code", () => {
  const owner = "0x19E7E376E7C213B7E7e7e46cc70A5dD086DAff2A";

  it("faucet: a NUL in ownerAddress is 400 INVALID_OWNER_ADDRESS, in requestId 400 INVALID_PAYLOAD; nothing stored", async () => {
    const before = await rowCounts();
    const setup = await postJson(`${p.http}/2fa/setup`, `{"ownerAddress":"${owner}\\u0000"}`);
    expectFaucetError(setup, 400, "INVALID_OWNER_ADDRESS");
    const fund = await postJson(
      `${p.http}/faucet/fund`,
      `{"ownerAddress":"${owner}","targetWalletAddress":"${owner}","chainId":"service","twoFactorCode":"123456","requestId":"r\\u0000"}`,
    );
    expectFaucetError(fund, 400, "INVALID_PAYLOAD");
    const codes = await graphqlCodes(`mutation ($o: String!) { setupTwoFactor(ownerAddress: $o) { ownerAddress } }`, { o: `${owner}\u0000` });
    expect(codes).toEqual(["INVALID_OWNER_ADDRESS"]);
    expect(await rowCounts()).toEqual(before);
  });

  it("monetization: a NUL in the signature is 400 INVALID_REQUEST; nothing stored", async () => {
    const before = await rowCounts();
    const answer = await putJson(`${p.http}/machine/2/monetization`, '{"opted_in":true,"timestamp":1767225600,"signature":"0x\\u0000"}');
    expect({ status: answer.status, code: answer.json().detail?.code }).toEqual({ status: 400, code: "INVALID_REQUEST" });
    expect(await rowCounts()).toEqual(before);
  });

  it("a NUL in a DID is 400 INVALID_ADDRESS; in an integer query parameter FastAPI's 422, as any non-integer", async () => {
    expect(await graphqlCodes(`query ($d: String!) { mcrScorecard(did: $d) { __typename } }`, { d: "did:service:2\u0000" })).toEqual(["INVALID_ADDRESS"]);
    const listing = await get(`${p.http}/operator/${owner}/machines?offset=%00`);
    expect(listing.status, listing.text).toBe(422);
    expect(listing.json().detail[0]).toMatchObject({ type: "int_parsing", loc: ["query", "offset"] });
  });
});

function expectFaucetError(answer: HttpAnswer, status: number, code: string) {
  expect({ status: answer.status, code: answer.json().code }).toEqual({ status, code });
}
