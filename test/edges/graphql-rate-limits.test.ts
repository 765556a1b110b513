/**
 * One per-IP budget whichever door a caller uses: every GraphQL root field counts against the same counters as the
 * REST route whose operation selects it (gateway/root-field-budgets.ts), each alias counts, fields whose route needs
 * the onboarding token count only requests carrying it, and every root field of the supergraph has a budget, proven
 * over the real listener for each field from its own client address.
 */
import http from "node:http";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import {
  buildSchema,
  getNamedType,
  isEnumType,
  isInputObjectType,
  isNonNullType,
  isScalarType,
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLInputType,
} from "graphql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rootFieldBudgets, supergraphRootFields } from "../../gateway/root-field-budgets.js";
import { RATINGS_ERRORS } from "../../rest-shim/errors/ratings.js";
import { OPERATIONS } from "../../rest-shim/operations.js";
import { AREAS, ROUTES, type RouteDefinition } from "../../rest-shim/routes.js";
import { startTestPlatform, type TestPlatform } from "../support/platform.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const SUPERGRAPH = readFileSync(path.join(root, "gateway", "supergraph.graphql"), "utf8");
const ONBOARDING = "Bearer dev-onboarding-token";
const LIMITS = {
  RATE_LIMIT_VERIFY_READ_PER_IP: "3",
  RATE_LIMIT_VERIFY_API_PER_IP: "6",
  RATE_LIMIT_CHALLENGE_PER_IP: "2",
  RATE_LIMIT_EVIDENCE_PER_IP: "2",
  RATE_LIMIT_RATINGS_PER_IP: "4",
  RATE_LIMIT_MARKETS_PER_IP: "5",
};

let p: TestPlatform;
beforeAll(async () => {
  p = await startTestPlatform(LIMITS);
}, 300_000);
afterAll(() => p?.close());

/** Each scenario speaks from its own loopback address, so budgets do not mix. */
let nextAddress = 10;
const freshAddress = () => `127.0.${Math.floor(nextAddress / 250) + 20}.${(nextAddress++ % 250) + 1}`;

interface Answer {
  status: number;
  body: any;
}

function request(url: string, from: string, init: { method?: string; body?: string; headers?: Record<string, string> } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: init.method ?? "GET", localAddress: from, headers: init.headers }, (res) => {
      let text = "";
      res.on("data", (chunk) => (text += chunk));
      res.on("end", () => resolve({ status: res.statusCode!, body: text ? JSON.parse(text) : undefined }));
    });
    req.on("error", reject);
    req.end(init.body);
  });
}

const gql = (from: string, query: string, variables: Record<string, unknown> = {}, authorization?: string) =>
  request(p.graphql, from, {
    method: "POST",
    body: JSON.stringify({ query, variables }),
    headers: { "content-type": "application/json", ...(authorization ? { authorization } : {}) },
  });
const restRead = (from: string) => request(`${p.http}/v1/verify/machines/1`, from);
const READ = `query ($id: String!) { machineVerification(machineId: $id) { machineId } }`;

describe("one budget across both doors", () => {
  it("GraphQL reads of the verification record are limited like the REST route (70 reads: not all 200)", async () => {
    const from = freshAddress();
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await gql(from, READ, { id: "1" })).status);
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
    const limited = await gql(from, READ, { id: "1" });
    expect(limited.body.errors[0]).toMatchObject({
      extensions: { code: "RATE_LIMITED", limit: "verifyReadPerIp" },
    });
    expect(limited.body.errors[0].message).toContain("verifyReadPerIp (3 per 60000 ms)");
    expect(limited.body.data).toBeUndefined();
  });

  it("REST and GraphQL reads spend the same counter, in either order", async () => {
    const from = freshAddress();
    expect((await restRead(from)).status).toBe(200);
    expect((await gql(from, READ, { id: "1" })).status).toBe(200);
    expect((await restRead(from)).status).toBe(200);
    expect((await gql(from, READ, { id: "1" })).status).toBe(429);
    expect((await restRead(from)).status).toBe(429);
  });

  it("each alias counts: one operation selecting the field four times is over a budget of three", async () => {
    const from = freshAddress();
    const fourTimes = `{ a: machineVerification(machineId: "1") { machineId } b: machineVerification(machineId: "1") { machineId }
      c: machineVerification(machineId: "1") { machineId } d: machineVerification(machineId: "1") { machineId } }`;
    expect((await gql(from, fourTimes)).status).toBe(429);
    // The refused operation spent the budget: REST is refused too.
    expect((await restRead(from)).status).toBe(429);
  });

  it("challenge issuance: counted only with the onboarding token, and then against the REST route's limits", async () => {
    const from = freshAddress();
    const issue = `mutation { createChipChallenge(machineId: "2") { nonce } }`;
    for (let i = 0; i < 4; i++) {
      const refused = await gql(from, issue);
      expect(refused.body.errors[0].extensions.code).toBe("ONBOARDING_AUTH_REQUIRED");
    }
    expect((await gql(from, issue, {}, ONBOARDING)).status).toBe(200);
    const rest = await request(`${p.http}/v1/verify/chip/challenge`, from, {
      method: "POST",
      body: '{"machineId":"2"}',
      headers: { authorization: ONBOARDING, "content-type": "application/json" },
    });
    expect(rest.status).toBe(201);
    const third = await gql(from, issue, {}, ONBOARDING);
    expect(third.status).toBe(429);
    expect(third.body.errors[0].extensions).toMatchObject({ code: "RATE_LIMITED", limit: "challengePerIp" });
  });
});

describe("the budget table", () => {
  const budgets = rootFieldBudgets(SUPERGRAPH);

  it("gives every root field of the supergraph a budget", () => {
    const fields = [...supergraphRootFields(SUPERGRAPH).keys()];
    expect(fields.length).toBeGreaterThanOrEqual(9);
    for (const field of fields) expect(budgets.get(field)?.limits.length, field).toBeGreaterThan(0);
  });

  it("takes a routed field's limits from its route, and the rest from its API family", () => {
    expect(budgets.get("Query.machineVerification")).toEqual({ limits: ["verifyApiPerIp", "verifyReadPerIp"], onlyWithOnboardingToken: false });
    expect(budgets.get("Mutation.createChipChallenge")).toEqual({ limits: ["verifyApiPerIp", "challengePerIp"], onlyWithOnboardingToken: true });
    expect(budgets.get("Mutation.submitChipEvidence")).toEqual({ limits: ["verifyApiPerIp", "evidencePerIp"], onlyWithOnboardingToken: true });
    // Probes are unlimited on REST (kubelets); on GraphQL they count against document 2's limit.
    expect(budgets.get("Query.health")).toEqual({ limits: ["ratingsPerIp"], onlyWithOnboardingToken: false });
    expect(budgets.get("Query.pendingChipEvidence")).toEqual({ limits: ["verifyApiPerIp"], onlyWithOnboardingToken: false });
  });

  it("a route added to the table brings its limits to the root field it selects, with no other change", () => {
    const route: RouteDefinition = {
      ...ROUTES.find((r) => r.path === "/health")!,
      path: "/mcr/health",
      area: AREAS.ratings,
      errors: RATINGS_ERRORS,
      operation: OPERATIONS.health,
      rateLimits: ["ratingsPerIp", "marketsPerIp"],
    };
    expect(rootFieldBudgets(SUPERGRAPH, [...ROUTES, route]).get("Query.health")!.limits).toEqual(["ratingsPerIp", "marketsPerIp"]);
  });
});

/** The smallest valid value of an input type (required members only). */
function sampleValue(type: GraphQLInputType): string {
  const named = getNamedType(type);
  if (isEnumType(named)) return named.getValues()[0]!.name;
  if (isInputObjectType(named)) {
    const members = Object.values(named.getFields()).filter((f) => isNonNullType(f.type) && f.defaultValue === undefined);
    return `{ ${members.map((m) => `${m.name}: ${sampleValue(m.type)}`).join(", ")} }`;
  }
  if (isScalarType(named) && (named.name === "Int" || named.name === "Float")) return "1";
  if (isScalarType(named) && named.name === "Boolean") return "true";
  return '"1"';
}

/** `query { field(requiredArg: value) { __typename } }` for any root field. */
function operationFor(kind: "Query" | "Mutation", field: GraphQLField<unknown, unknown>): string {
  const required = field.args.filter((a: GraphQLArgument) => isNonNullType(a.type) && a.defaultValue === undefined);
  const args = required.length ? `(${required.map((a) => `${a.name}: ${sampleValue(a.type)}`).join(", ")})` : "";
  const selection = isScalarType(getNamedType(field.type)) || isEnumType(getNamedType(field.type)) ? "" : " { __typename }";
  return `${kind === "Query" ? "query" : "mutation"} { ${field.name}${args}${selection} }`;
}

describe("every root field over the GraphQL listener", () => {
  const schema = buildSchema(SUPERGRAPH, { assumeValidSDL: true });
  const budgets = rootFieldBudgets(SUPERGRAPH);
  const limits: Record<string, number> = {
    verifyReadPerIp: 3,
    verifyApiPerIp: 6,
    challengePerIp: 2,
    evidencePerIp: 2,
    ratingsPerIp: 4,
    marketsPerIp: 5,
  };
  const fields = (["Query", "Mutation"] as const).flatMap((kind) => {
    const type = kind === "Query" ? schema.getQueryType() : schema.getMutationType();
    return Object.values(type?.getFields() ?? {}).map((field) => [`${kind}.${field.name}`, operationFor(kind, field)] as const);
  });

  it.each(fields)("%s answers 429 once its smallest limit is used up", async (key, operation) => {
    const budget = budgets.get(key as never)!;
    const allowed = Math.min(...budget.limits.map((name) => limits[name]!));
    const from = freshAddress();
    const authorization = budget.onlyWithOnboardingToken ? ONBOARDING : "Bearer dev-operator-token";
    const statuses: number[] = [];
    for (let i = 0; i <= allowed; i++) statuses.push((await gql(from, operation, {}, authorization)).status);
    expect(statuses.slice(0, allowed).every((status) => status !== 429), `${operation}: ${statuses}`).toBe(true);
    expect(statuses[allowed], operation).toBe(429);
  });
});
