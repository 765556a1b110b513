/**
 * The shim's direct path (gateway/local-executor.ts, gateway/direct-subgraph.ts, gateway/compiled-execution.ts): an
 * operation whose query plan is one fetch to one in-process subgraph runs on that subgraph directly. Every route of the route table whose
 * operation goes direct is asked the same requests through the platform's shim and through a second set of shim
 * listeners over the same gateway with the direct path off; status, the headers clients read and the body bytes
 * must be the same, and the executors' results (data, errors with their extensions) alike.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLocalExecutor, type LocalExecutor } from "../../gateway/local-executor.js";
import { createRestListeners, type RestListeners } from "../../rest-shim/server.js";
import { createRateLimiter } from "../../rest-shim/rate-limit.js";
import { ROUTES, type RouteDefinition } from "../../rest-shim/routes.js";
import { MACHINE_OPERATIONS } from "../../rest-shim/routes/markets/machines/machine.routes.js";
import { RUNTIME_OPERATIONS } from "../../rest-shim/routes/markets/machines/runtime.routes.js";
import { PAYMENT_OPERATIONS } from "../../rest-shim/routes/markets/orders/payment.routes.js";
import type { ShimOperation } from "../../rest-shim/executor.js";
import { OPERATIONS } from "../../rest-shim/operations.js";
import { send, type HttpAnswer } from "../support/http.js";
import { withMachineSession } from "../support/machine-sessions.js";
import { bindMachine, PLATFORM_START_TIMEOUT_MS, startMarketsPlatform, type MarketsPlatform } from "../markets/helpers.js";

const COMPARED_HEADERS = ["content-type", "cache-control", "www-authenticate", "location", "retry-after", "allow", "content-length", "connection"];

let p: MarketsPlatform;
let direct: LocalExecutor;
let viaGateway: LocalExecutor;
let gatewayOnly: RestListeners;
let base: { direct: Record<string, string>; gateway: Record<string, string> };
let recordId: string;

beforeAll(async () => {
  p = await startMarketsPlatform();
  recordId = (await bindMachine(p, p.machine("active", 0))).id;
  direct = p.platform.shim!.executor;
  // Paths are decided on first use; decide every shim operation's now, so each route below knows its path.
  direct.paths(Object.values(OPERATIONS));
  viaGateway = createLocalExecutor(p.platform.shim!.gateway, { direct: false });
  const config = { ...p.config, httpPort: 0, marketsPort: 0, ratings: { ...p.config.ratings, v2: { ...p.config.ratings.v2, port: 0 } } };
  gatewayOnly = createRestListeners({ config, executor: viaGateway, rateLimiter: createRateLimiter(config) });
  const urls = await gatewayOnly.listen();
  base = {
    direct: { http: p.http, markets: p.markets, mcr2: p.mcr2 },
    gateway: { http: urls.httpUrl, markets: urls.marketsUrl, mcr2: urls.mcr2Url },
  };
}, PLATFORM_START_TIMEOUT_MS);
afterAll(async () => {
  await gatewayOnly?.close();
  await p?.close();
});

const isDirect = (route: RouteDefinition) => !(direct.paths().get(route.operation.name) ?? "gateway").startsWith("gateway");

/** A successful write stamps the clock (`updatedAt`): its two answers differ in that instant only. */
const INSTANT = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/g;

function view(answer: HttpAnswer, method: string) {
  const body = method !== "GET" && answer.status < 300 ? answer.text.replace(INSTANT, "<instant>") : answer.text;
  return { status: answer.status, headers: Object.fromEntries(COMPARED_HEADERS.map((name) => [name, answer.headers[name]])), body };
}

/** One request to the same route on both shims (gateway path first: a write it makes is then seen by both alike). */
async function both(route: RouteDefinition, path: string, body?: string, headers: Record<string, string> = {}) {
  const request = { method: route.method, headers: body === undefined ? headers : { "content-type": "application/json", ...headers }, body };
  const gateway = view(await send(`${base.gateway[route.area.listener]}${path}`, request), route.method);
  const answered = view(await send(`${base.direct[route.area.listener]}${path}`, request), route.method);
  return { gateway, direct: answered };
}

describe("which operations go direct", () => {
  it("decides each operation once: single-subgraph plans direct, the rest through the gateway", () => {
    const paths = direct.paths();
    expect(paths.get("MarketMachines")).toBe("markets");
    expect(paths.get("MarketMachine")).toBe("markets");
    expect([...paths.values()].filter((path) => path.startsWith("gateway")).length).toBeGreaterThan(0);
    expect([...viaGateway.paths(Object.values(OPERATIONS)).values()].every((path) => path.startsWith("gateway"))).toBe(true);
    expect(ROUTES.filter(isDirect).length).toBeGreaterThan(100);
    // The compiled execution (gateway/compiled-execution.ts) runs the direct operations of its shape, so every
    // comparison below covers it where it applies; the rest run on graphql-js.
    const executions = direct.executions();
    expect(executions.get("MarketMachines")).toBe("compiled");
    expect(executions.get("MachineAgentHeartbeat")).toBe("compiled");
    expect(executions.get("MarketMachine")).toBe("compiled");
    expect([...executions.values()].filter((how) => how.startsWith("graphql-js: ")).length).toBeGreaterThan(0);
    expect([...viaGateway.executions().values()]).toEqual([]);
  });
});

describe("the direct path answers as the gateway path", () => {
  it("GET /api/v1/machines?limit=1: the same page, byte for byte", async () => {
    const route = ROUTES.find((r) => r.operation === MACHINE_OPERATIONS.marketMachines)!;
    const answers = await both(route, "/api/v1/machines?limit=1");
    expect(answers.direct.status).toBe(200);
    expect(JSON.parse(answers.direct.body).items.map((item: { id: string }) => item.id)).toEqual([recordId]);
    expect(answers.direct).toEqual(answers.gateway);
  });

  it("an unknown machine: the documented 404 NOT_FOUND envelope on both", async () => {
    const route = ROUTES.find((r) => r.operation === MACHINE_OPERATIONS.marketMachine)!;
    const answers = await both(route, "/api/v1/machines/mach_000000000000000000000000");
    expect(answers.direct.status).toBe(404);
    expect(JSON.parse(answers.direct.body)).toEqual({ error: { code: "NOT_FOUND", message: expect.any(String) } });
    expect(answers.direct.headers["cache-control"]).toBe("no-store");
    expect(answers.direct).toEqual(answers.gateway);
  });

  it("the executors' results are alike: data, and errors with message, path and extensions", async () => {
    const request = { clientIp: "127.0.0.1", requestId: "direct-path-test" };
    const cases: Array<[ShimOperation, Record<string, unknown>]> = [
      [MACHINE_OPERATIONS.marketMachines, { limit: 1 }],
      [MACHINE_OPERATIONS.marketMachines, { limit: 1, cursor: undefined }],
      [MACHINE_OPERATIONS.marketMachine, { id: "mach_000000000000000000000000" }],
      [MACHINE_OPERATIONS.marketMachine, { id: 7 }],
      [MACHINE_OPERATIONS.marketMachines, { limit: "x" }],
      // Variables the gateway's check refuses in another form than the subgraph's coercion would.
      [MACHINE_OPERATIONS.marketMachine, {}],
      [MACHINE_OPERATIONS.marketMachine, { id: undefined }],
      [MACHINE_OPERATIONS.marketMachine, { id: null }],
      [MACHINE_OPERATIONS.marketMachines, { limit: "x", cursor: 3 }],
      [RUNTIME_OPERATIONS.machineAgentHeartbeat, { agentToken: "mat_x", input: { leaseSeconds: "x", endpoints: [{ providerKey: 1 }] } }],
      [RUNTIME_OPERATIONS.machineAgentHeartbeat, { agentToken: "mat_x", input: { leaseSeconds: 60, endpoints: [], extra: 1 } }],
      // Both refuse: the gateway's check answers (its errors for orderId only).
      [PAYMENT_OPERATIONS.submitPaymentProof, { orderId: 7, details: "not an object" }],
    ];
    for (const [operation, variables] of cases) {
      const json = async (executor: LocalExecutor) => JSON.parse(JSON.stringify(await executor.execute(operation, variables, request)));
      const [gateway, answered] = [await json(viaGateway), await json(direct)];
      expect(answered, `${operation.name} ${JSON.stringify(variables)}`).toEqual(gateway);
    }
    // A custom scalar only the subgraph checks (the API schema's JSONObject takes any value): the subgraph refuses,
    // with the same errors on both paths. The gateway shapes `data: null` from the empty fetch, the direct path has
    // none; the shim answers from the first error either way.
    const refused = { orderId: "ord_x", details: "not an object" };
    const [gatewayRefused, directRefused] = [await viaGateway.execute(PAYMENT_OPERATIONS.submitPaymentProof, refused, request), await direct.execute(PAYMENT_OPERATIONS.submitPaymentProof, refused, request)];
    expect(directRefused.data).toBeUndefined();
    expect(JSON.parse(JSON.stringify(directRefused.errors))).toEqual(JSON.parse(JSON.stringify(gatewayRefused.errors)));
    expect(directRefused.errors).toHaveLength(1);
    const notFound = await direct.execute(MACHINE_OPERATIONS.marketMachine, { id: "mach_000000000000000000000000" }, request);
    expect(notFound.errors?.[0]?.extensions).toMatchObject({ code: "NOT_FOUND", serviceName: "markets" });
    for (const operation of [MACHINE_OPERATIONS.marketMachine, RUNTIME_OPERATIONS.machineAgentHeartbeat, PAYMENT_OPERATIONS.submitPaymentProof]) {
      expect(direct.paths().get(operation.name), operation.name).toBe("markets");
    }
  });

  it("every direct route answers the same requests alike (known and unknown IDs, empty bodies, credentials or none)", async () => {
    const routes = ROUTES.filter(isDirect);
    const mismatches: string[] = [];
    let succeeded = 0;
    let authorised = 0;
    for (const route of routes) {
      const withBody = route.method !== "GET" && route.method !== "DELETE";
      for (const id of [route.area.listener === "markets" ? recordId : "1", "999999"]) {
        const path = route.path.replace(/:[A-Za-z]+/g, id) + (route.method === "GET" ? "?limit=1" : "");
        const body = withBody ? "{}" : undefined;
        for (const headers of [{}, withMachineSession(route.method, path, body, {})]) {
          const answers = await both(route, path, body, headers);
          if (answers.direct.status < 300) succeeded++;
          // The machine's session reached the subgraph on the direct path: an authorised request was let through.
          if (answers.direct.status < 300 && "authorization" in headers) authorised++;
          if (JSON.stringify(answers.direct) !== JSON.stringify(answers.gateway)) {
            mismatches.push(`${route.method} ${path}: ${JSON.stringify(answers.gateway)} vs ${JSON.stringify(answers.direct)}`);
          }
        }
      }
    }
    expect(mismatches).toEqual([]);
    expect(succeeded).toBeGreaterThan(10);
    expect(authorised).toBeGreaterThan(0);
  }, 120_000);
});
