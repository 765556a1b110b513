/**
 * Who may call each markets route, table-driven: every entry of the route table declares its caller, no write that
 * names a machine is public, and every route asking for the machine's authority refuses, over real sockets and with
 * nothing written, a request without it (401 MACHINE_IDENTITY_PROOF_REQUIRED), with a forged or another machine's
 * session (401 MACHINE_IDENTITY_PROOF_INVALID), before global rule 1 and before any value of the request (a bad body
 * with a forged session is still 401). GraphQL: every mutation naming a machine takes a credential, and the machine
 * authority mutations refuse an anonymous call. The arbiter's routes ask the operator's credential
 * (OPERATOR_TOKENS) the same way, before any value of the request. Routes and mutations are read from the table and the schema, so
 * later ones are walked too.
 */
import { Wallet } from "ethers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildSchema, isNonNullType, isScalarType, type GraphQLField } from "graphql";
import { readFileSync } from "node:fs";
import path from "node:path";
import { ROUTES, AREAS, type RouteDefinition } from "../../rest-shim/routes.js";
import { callerRuleOf, machineRuleOf, MARKETS_BASE, SESSION_KINDS } from "../../rest-shim/routes/markets/http.js";
import { graphql } from "../support/platform.js";
import { DEV_OPERATOR_TOKEN } from "../../subgraphs/shared/config.js";
import { sessionOf } from "../support/machine-sessions.js";
import {
  agentHeaders,
  api,
  bindMachine,
  expectMarketsError,
  pairAgent,
  PLATFORM_START_TIMEOUT_MS,
  prismaOf,
  startMarketsPlatform,
  type MarketsPlatform,
} from "./helpers.js";

const MARKETS_ROUTES = ROUTES.filter((route) => route.area === AREAS.markets);
const name = (route: RouteDefinition) => `${route.method} ${route.path}`;
/** Writes anyone may make, each for the reason its entry gives. */
const PUBLIC_WRITES = [
  "POST /api/v1/machine-identity/challenges",
  "POST /api/v1/machines/:machineId/agent-pairings/challenges",
  "POST /api/v1/policies",
  "PATCH /api/v1/policies/:policyId",
  "POST /api/v1/stream/orders",
  "POST /api/v1/stream/orders/:orderId/payment",
];

/**
 * One platform for the file: each walk works on its own machines and compares state before and after each request, and
 * the tests of a file run one after another, so the walks do not disturb each other.
 */
let p: MarketsPlatform;
beforeAll(async () => {
  p = await startMarketsPlatform();
}, PLATFORM_START_TIMEOUT_MS);
afterAll(() => p?.close());

describe("the route table", () => {
  it.each(MARKETS_ROUTES.map((route) => [name(route), route] as const))("%s declares who may call it", (_name, route) => {
    const caller = callerRuleOf(route);
    expect(caller, "built with marketsRoute").toBeDefined();
    if (caller!.kind === "public") {
      expect(caller!.reason.length).toBeGreaterThan(5);
      if (route.method !== "GET") expect(PUBLIC_WRITES, "a public write").toContain(name(route));
    }
    if (SESSION_KINDS.has(caller!.kind)) expect(route.credentialCheck !== undefined || !route.path.includes(":machineId")).toBe(true);
  });

  it("asks the machine's authority on the writes that act for a machine", () => {
    const sessionRoutes = MARKETS_ROUTES.filter((route) => SESSION_KINDS.has(callerRuleOf(route)!.kind)).map(name);
    for (const expected of [
      "PATCH /api/v1/machines/:machineId",
      "PUT /api/v1/machines/:machineId/runtime-endpoints/:providerKey",
      "POST /api/v1/machines/:machineId/agents/enrollment",
      "POST /api/v1/machines/:machineId/agents/:agentId/revoke",
      "POST /api/v1/machines/:machineId/graph/nodes",
      "POST /api/v1/machines/:machineId/tasks",
      "POST /api/v1/machines/:machineId/tasks/:taskId/execute",
      "POST /api/v1/machines/:machineId/agent-pairings",
      "PATCH /api/v1/machines/:machineId/agent-pairings/:pairingId",
      "DELETE /api/v1/machines/:machineId/agent-pairings/:pairingId",
      "POST /api/v1/market/search",
    ]) {
      expect(sessionRoutes).toContain(expected);
    }
  });

  it("asks the operator's credential on the arbiter's writes", () => {
    const operatorRoutes = MARKETS_ROUTES.filter((route) => callerRuleOf(route)!.kind === "operator");
    expect(operatorRoutes.map(name)).toEqual(["POST /api/v1/market/orders/:orderId/resolve"]);
    for (const route of operatorRoutes) expect(route.credentialCheck).toBeDefined();
  });
});

describe("the operator's credential, walked over the route table", () => {
  const OPERATOR_ROUTES = MARKETS_ROUTES.filter((route) => callerRuleOf(route)!.kind === "operator");

  it.each(OPERATOR_ROUTES.map((route) => [name(route), route] as const))("%s", async (_name, route) => {
    const path = route.path.slice(MARKETS_BASE.length).replace(/:[A-Za-z]+/g, "ord_aaaaaaaaaaaaaaaa");
    const before = await prismaOf(p).marketAuditEvent.count();
    const send = (authorization: string, body: unknown = { decision: "release", reason: "walk" }) => api(p, route.method, path, body, { authorization });
    expectMarketsError(await send(""), 401, "OPERATOR_AUTH_REQUIRED");
    expectMarketsError(await send("Bearer not-the-operator-token"), 401, "OPERATOR_AUTH_INVALID");
    expectMarketsError(await send("Basic abc"), 401, "OPERATOR_AUTH_INVALID");
    // A bad body says nothing to a caller without the credential; with it, the same body is the caller's to fix.
    expectMarketsError(await send("", "[1,"), 401, "OPERATOR_AUTH_REQUIRED");
    expectMarketsError(await send("Bearer not-the-operator-token", "[1,"), 401, "OPERATOR_AUTH_INVALID");
    expectMarketsError(await send(`Bearer ${DEV_OPERATOR_TOKEN}`, "[1,"), 400, "VALIDATION_ERROR");
    expect(await prismaOf(p).marketAuditEvent.count()).toBe(before);
  });
});

/** A request for the route on `machineId`: path parameters filled with well-formed values, the guard's sample body. */
function requestFor(route: RouteDefinition, machineId: string): { path: string; body: unknown } {
  const rule = machineRuleOf(route)!;
  const sample = rule.kind === "guarded" ? rule.sample : {};
  const fill = (value: unknown): unknown =>
    typeof value === "string"
      ? value.replaceAll("{machineId}", machineId)
      : Array.isArray(value)
        ? value.map(fill)
        : value !== null && typeof value === "object"
          ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fill(v)]))
          : value;
  let path = route.path.slice(MARKETS_BASE.length).replace(":machineId", machineId);
  for (const [param, value] of Object.entries(sample.params ?? {})) path = path.replace(`:${param}`, encodeURIComponent(value));
  path = path.replace(/:[A-Za-z]+/g, "x_000000000000000000000000");
  const body = route.rules.jsonBody ? fill(sample.body ?? { displayName: "renamed" }) : undefined;
  return { path, body };
}

describe("the machine's authority, walked over the route table", () => {
  let mine: string;
  let other: string;
  beforeAll(async () => {
    mine = (await bindMachine(p, p.machine("active", 0))).id;
    other = (await bindMachine(p, p.machine("active", 1))).id;
  }, PLATFORM_START_TIMEOUT_MS);

  const state = async () => ({
    audit: await prismaOf(p).marketAuditEvent.count(),
    machine: await prismaOf(p).marketMachine.findUniqueOrThrow({ where: { id: mine } }),
    agents: await prismaOf(p).marketMachineAgent.count(),
    pairings: await prismaOf(p).marketAgentPairing.count(),
    searches: await prismaOf(p).marketsSearch.count(),
  });

  const WALKED = MARKETS_ROUTES.filter((route) => SESSION_KINDS.has(callerRuleOf(route)!.kind) && route.path.includes(":machineId") || name(route) === "POST /api/v1/market/search");

  it("the walk is not empty", () => {
    expect(WALKED.length).toBeGreaterThanOrEqual(18);
  });

  it.each(WALKED.map((route) => [name(route), route] as const))("%s", async (_name, route) => {
    const { path, body } = requestFor(route, mine);
    const before = await state();
    const forged = (() => {
      const [header, payload] = sessionOf(mine)!.split(".");
      return `${header}.${payload}.${"A".repeat(43)}`;
    })();
    const send = (headers: Record<string, string>, sent: unknown = body) => api(p, route.method, path, sent, headers);
    expectMarketsError(await send({ authorization: "" }), 401, "MACHINE_IDENTITY_PROOF_REQUIRED");
    expectMarketsError(await send({ authorization: `Bearer ${forged}` }), 401, "MACHINE_IDENTITY_PROOF_INVALID");
    expectMarketsError(await send({ authorization: `Bearer ${sessionOf(other)}` }), 401, "MACHINE_IDENTITY_PROOF_INVALID");
    expectMarketsError(await send({ authorization: "Basic abc" }), 401, "MACHINE_IDENTITY_PROOF_INVALID");
    if (route.rules.jsonBody) {
      // A bad body says nothing to a caller without the machine's authority.
      expectMarketsError(await send({ authorization: "" }, "[1,"), 401, "MACHINE_IDENTITY_PROOF_REQUIRED");
      expectMarketsError(await send({ authorization: `Bearer ${forged}` }, "[1,"), 401, "MACHINE_IDENTITY_PROOF_INVALID");
      expectMarketsError(await send({ authorization: `Bearer ${forged}` }, { machineId: 7 }), 401, "MACHINE_IDENTITY_PROOF_INVALID");
      // With the authority, the same bad body is the caller's to fix.
      expectMarketsError(await send({ authorization: `Bearer ${sessionOf(mine)}` }, "[1,"), 400, "VALIDATION_ERROR");
    }
    expect(await state()).toEqual(before);
  });
});

describe("a pairing belongs to its machine", () => {
  let machineId: string;
  beforeAll(async () => {
    machineId = (await bindMachine(p, p.machine("active", 3))).id;
  }, PLATFORM_START_TIMEOUT_MS);

  it("its own token can neither loosen, pause, resume nor revoke it; the machine's session can", async () => {
    const wallet = Wallet.createRandom();
    const pairing = await pairAgent(p, machineId, wallet, { perTransactionLimit: 0.05, dailySpendLimit: 0.05, currency: "USD" });
    const path = `/machines/${machineId}/agent-pairings/${pairing.id}`;
    const before = await prismaOf(p).marketAgentPairing.findUniqueOrThrow({ where: { id: pairing.id } });
    const loosen = { delegationPolicy: { perTransactionLimit: 1e9, dailySpendLimit: 1e9, currency: "USD" } };
    expectMarketsError(await api(p, "PATCH", path, loosen, { authorization: `Bearer ${pairing.pairingToken}` }), 401, "MACHINE_IDENTITY_PROOF_INVALID");
    expectMarketsError(await api(p, "PATCH", path, loosen, { authorization: "", ...agentHeaders(pairing.pairingToken) }), 401, "MACHINE_IDENTITY_PROOF_REQUIRED");
    expectMarketsError(await api(p, "PATCH", path, { status: "paused" }, { authorization: "", ...agentHeaders(pairing.pairingToken) }), 401, "MACHINE_IDENTITY_PROOF_REQUIRED");
    expectMarketsError(await api(p, "DELETE", path, undefined, { authorization: `Bearer ${pairing.pairingToken}` }), 401, "MACHINE_IDENTITY_PROOF_INVALID");
    expect(await prismaOf(p).marketAgentPairing.findUniqueOrThrow({ where: { id: pairing.id } })).toEqual(before);
    // The machine pauses and resumes it, and sets its policy.
    expect((await api(p, "PATCH", path, { status: "paused" })).status).toBe(200);
    expect((await api(p, "PATCH", path, { status: "active" })).status).toBe(200);
    expect((await api(p, "PATCH", path, { delegationPolicy: { perTransactionLimit: 0.01, currency: "USD" } })).status).toBe(200);
  });
});

describe("GraphQL mutations", () => {
  const sdl = readFileSync(path.join(import.meta.dirname, "../../subgraphs/markets/schema.graphql"), "utf8");
  const schema = buildSchema(sdl.replace(/@\w+(\([^)]*\))?/g, "").replace(/^(extend )?schema[^{]*\{[^}]*\}/m, ""), { assumeValidSDL: true });
  const mutations = Object.values(schema.getMutationType()!.getFields());
  const CREDENTIALS = ["machineSession", "operatorToken", "pairingToken", "agentToken", "agentProof", "agent", "credentials", "deliveryToken", "identityProof"];
  const namesMachine = (field: GraphQLField<unknown, unknown>) =>
    field.args.some((arg) => arg.name === "machineId" || arg.name === "id") ||
    field.args.some((arg) => {
      const type = isNonNullType(arg.type) ? arg.type.ofType : arg.type;
      return "getFields" in type && "machineId" in (type as { getFields(): Record<string, unknown> }).getFields();
    });

  it("every mutation that names a machine takes a credential (or is a challenge, whose answer grants nothing)", () => {
    const bare = mutations
      .filter(namesMachine)
      .filter((field) => !/Challenge$/.test(field.name))
      .filter((field) => {
        const input = field.args.find((arg) => arg.name === "input");
        const inputType = input && (isNonNullType(input.type) ? input.type.ofType : input.type);
        const inputFields = inputType && "getFields" in inputType ? Object.keys((inputType as { getFields(): Record<string, unknown> }).getFields()) : [];
        return !field.args.some((arg) => CREDENTIALS.includes(arg.name)) && !inputFields.some((f) => CREDENTIALS.includes(f));
      })
      .map((field) => field.name);
    expect(bare).toEqual([]);
  });

  describe("anonymous calls", () => {
    let mine: string;
    beforeAll(async () => {
      mine = (await bindMachine(p, p.machine("active", 2))).id;
    }, PLATFORM_START_TIMEOUT_MS);

    // Mutations whose arguments other than the session are all strings can be called generically.
    const simple = mutations.filter(
      (field) =>
        field.args.some((arg) => arg.name === "machineSession") &&
        field.args.every((arg) => arg.name === "machineSession" || isScalarType(isNonNullType(arg.type) ? arg.type.ofType : arg.type)),
    );

    it("the walk is not empty", () => {
      expect(simple.length).toBeGreaterThanOrEqual(6);
    });

    it.each(simple.map((field) => [field.name, field] as const))("%s: 401 MACHINE_IDENTITY_PROOF_REQUIRED, nothing written", async (_n, field) => {
      const before = await prismaOf(p).marketAuditEvent.count();
      const args = field.args.filter((arg) => arg.name !== "machineSession");
      const decl = args.map((arg) => `$${arg.name}: ${arg.type.toString()}`).join(", ");
      const call = args.map((arg) => `${arg.name}: $${arg.name}`).join(", ");
      const variables = Object.fromEntries(args.map((arg) => [arg.name, arg.name === "machineId" || arg.name === "id" ? mine : "x_000000000000000000000000"]));
      const selection = isScalarType(isNonNullType(field.type) ? field.type.ofType : field.type) ? "" : " { __typename }";
      const anonymous = await graphql(p.graphql, `mutation${decl ? `(${decl})` : ""} { ${field.name}${call ? `(${call})` : ""}${selection} }`, variables);
      expect(anonymous.body.errors?.[0]?.extensions?.code).toBe("MACHINE_IDENTITY_PROOF_REQUIRED");
      expect(await prismaOf(p).marketAuditEvent.count()).toBe(before);
    });
  });
});
