/**
 * Global rule 1 (document 3), table-driven: every route of the markets route table that names a machine (path,
 * body or `machineId` query) answers 404 NOT_FOUND for an unknown machine, 409 MACHINE_NOT_ACTIVATED for one that
 * is not identity-verified and 409 MACHINE_NOT_ACTIVE for a verified one that is not active, in the markets
 * envelope, and lets an active, verified machine through. Routes are read from the table, so a route added later
 * is walked too; only the record's own routes, policies and audit events may be exempt.
 *
 * Runs with MACHINE_IDENTITY_VERIFICATION=off, where every machine state is reachable through the API: a draft
 * without identity (unverified), and identities bound without a proof (verified because they resolve on chain).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROUTES, AREAS, type RouteDefinition } from "../../../rest-shim/routes.js";
import { callerRuleOf, machineRuleOf, MARKETS_BASE, type MachineRule } from "../../../rest-shim/routes/markets/http.js";
import { api, expectMarketsError, expectOk, PLATFORM_START_TIMEOUT_MS, startMarketsPlatform, type MarketsPlatform } from "../helpers.js";

const MARKETS_ROUTES = ROUTES.filter((route) => route.area === AREAS.markets);
/** The only paths global rule 1 may skip: the machine record's own routes, policies and audit events. */
const MAY_BE_EXEMPT = [/^\/api\/v1\/machines\/:machineId$/, /^\/api\/v1\/machine-identity\/sessions$/, /^\/api\/v1\/policies(\/|$)/, /^\/api\/v1\/audit-events(\/|$)/];

const name = (route: RouteDefinition) => `${route.method} ${route.path}`;
/** Callers whose credential is checked before global rule 1 on routes that name the machine in their body or path. */
const AGENT_FIRST = new Set(["machine-agent", "pairing-or-machine-agent"]);

describe("the route table", () => {
  it.each(MARKETS_ROUTES.map((route) => [name(route), route] as const))("%s declares its relation to rule 1", (_name, route) => {
    const rule = machineRuleOf(route);
    expect(rule, "built with marketsRoute").toBeDefined();
    expect(route.path.startsWith(`${MARKETS_BASE}/`)).toBe(true);
    if (route.path.includes(":machineId")) expect(rule!.kind).not.toBe("none");
    if (rule!.kind === "exempt") expect(MAY_BE_EXEMPT.some((pattern) => pattern.test(route.path)), rule!.reason).toBe(true);
  });
});

const GUARDED = MARKETS_ROUTES.flatMap((route) => {
  const rule = machineRuleOf(route);
  return rule?.kind === "guarded" ? [[name(route), route, rule] as const] : [];
});

function request(route: RouteDefinition, rule: Extract<MachineRule, { kind: "guarded" }>, machineId: string) {
  const fill = (value: unknown): unknown =>
    typeof value === "string"
      ? value.replaceAll("{machineId}", machineId)
      : Array.isArray(value)
        ? value.map(fill)
        : value !== null && typeof value === "object"
          ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fill(v)]))
          : value;
  let path = route.path.slice(MARKETS_BASE.length).replace(":machineId", machineId);
  for (const [param, value] of Object.entries(rule.sample.params ?? {})) path = path.replace(`:${param}`, encodeURIComponent(value));
  if (path.includes("/:")) throw new Error(`${name(route)}: the sample gives no value for a path parameter`);
  const query = rule.sample.query ? `?${new URLSearchParams(fill(rule.sample.query) as Record<string, string>)}` : "";
  const body = route.rules.jsonBody ? fill(rule.sample.body ?? {}) : undefined;
  return { path: `${path}${query}`, body };
}

/** What an active, verified machine's sample request gets once past rule 1. */
const LET_THROUGH: Record<string, [number, string?]> = {
  "GET /api/v1/machines/:machineId/runtime-endpoints": [200],
  "GET /api/v1/machines/:machineId/runtime-endpoints/:providerKey": [404, "NOT_FOUND"],
  "PUT /api/v1/machines/:machineId/runtime-endpoints/:providerKey": [201],
  "DELETE /api/v1/machines/:machineId/runtime-endpoints/:providerKey": [204],
  "POST /api/v1/machines/:machineId/agents/enrollment": [201],
  "GET /api/v1/machines/:machineId/agents": [200],
  "POST /api/v1/machines/:machineId/agents/:agentId/revoke": [404, "NOT_FOUND"],
  "GET /api/v1/machines/:machineId/graph": [200],
  "POST /api/v1/machines/:machineId/graph/nodes": [201],
  "PATCH /api/v1/machines/:machineId/graph/nodes/:nodeId": [404, "NOT_FOUND"],
  "DELETE /api/v1/machines/:machineId/graph/nodes/:nodeId": [404, "NOT_FOUND"],
  "POST /api/v1/machines/:machineId/graph/edges": [400, "VALIDATION_ERROR"],
  "PATCH /api/v1/machines/:machineId/graph/edges/:edgeId": [404, "NOT_FOUND"],
  "DELETE /api/v1/machines/:machineId/graph/edges/:edgeId": [404, "NOT_FOUND"],
  "POST /api/v1/market/search": [200],
  "GET /api/v1/machines/:machineId/tasks": [200],
  "POST /api/v1/machines/:machineId/tasks": [201],
  "GET /api/v1/machines/:machineId/tasks/:taskId": [404, "NOT_FOUND"],
  "POST /api/v1/machines/:machineId/tasks/:taskId/discover": [404, "NOT_FOUND"],
  "POST /api/v1/machines/:machineId/tasks/:taskId/resolve": [404, "NOT_FOUND"],
  "POST /api/v1/machines/:machineId/tasks/:taskId/execute": [404, "NOT_FOUND"],
  "GET /api/v1/machines/:machineId/routes": [200],
  "GET /api/v1/machines/:machineId/outcomes": [200],
  "GET /api/v1/runs": [200],
  "GET /api/v1/machines/:machineId/agent-pairings": [200],
  "POST /api/v1/machines/:machineId/agent-pairings/challenges": [201],
  "POST /api/v1/machines/:machineId/agent-pairings": [401, "AGENT_PAIRING_PROOF_REQUIRED"],
  "POST /api/v1/machines/:machineId/agent-pairings/:pairingId/sessions": [404, "NOT_FOUND"],
  "PATCH /api/v1/machines/:machineId/agent-pairings/:pairingId": [404, "NOT_FOUND"],
  "DELETE /api/v1/machines/:machineId/agent-pairings/:pairingId": [404, "NOT_FOUND"],
  "POST /api/v1/market/orders": [401, "AGENT_AUTH_REQUIRED"],
  "GET /api/v1/market/orders": [200],
  "GET /api/v1/stream/listings": [200],
};

describe("global rule 1 on every guarded route", () => {
  let p: MarketsPlatform;
  const ids = { active: "", draft: "", blocked: "", unknown: "mach_000000000000000000000000" };
  beforeAll(async () => {
    p = await startMarketsPlatform({ MACHINE_IDENTITY_VERIFICATION: "off" });
    ids.draft = expectOk(await api(p, "POST", "/machines", { displayName: "draft, no identity" }), 201).item.id;
    const blocked = expectOk(await api(p, "POST", "/machines", { displayName: "blocked", identityRef: p.machine("active", 0).did, status: "blocked" }), 201).item;
    ids.blocked = blocked.id;
    const active = expectOk(await api(p, "POST", "/machines", { displayName: "active", identityRef: p.machine("active", 1).did }), 201).item;
    expect([blocked.status, active.status]).toEqual(["blocked", "active"]);
    ids.active = active.id;
  }, PLATFORM_START_TIMEOUT_MS);
  afterAll(() => p?.close());

  it("the walk is not empty", () => {
    expect(GUARDED.length).toBeGreaterThanOrEqual(7);
  });

  it.each(GUARDED)("%s", async (_name, route, rule) => {
    const send = (machineId: string) => {
      const { path, body } = request(route, rule, machineId);
      return api(p, route.method, path, body);
    };
    if (AGENT_FIRST.has(callerRuleOf(route)!.kind)) {
      // The agent's credential comes before rule 1: without it, no machine state shows (its suites walk rule 1).
      for (const id of [ids.unknown, ids.draft, ids.blocked, ids.active]) expectMarketsError(await send(id), 401, "AGENT_AUTH_REQUIRED");
      return;
    }
    expectMarketsError(await send(ids.unknown), 404, "NOT_FOUND");
    expectMarketsError(await send(ids.draft), 409, "MACHINE_NOT_ACTIVATED");
    expectMarketsError(await send(ids.blocked), 409, "MACHINE_NOT_ACTIVE");
    const passed = await send(ids.active);
    expect(passed.text).not.toContain("MACHINE_NOT_ACTIV");
    // Past rule 1, each sample gets its exact answer: a success, or the check that follows rule 1 on that route.
    const [status, code] = LET_THROUGH[name(route)] ?? [];
    expect({ status: passed.status, code: passed.status >= 400 ? passed.json().error.code : undefined }, passed.text).toEqual({ status, code });
  });
});
