/**
 * Route and method resolution on both listeners: documented routes, 404 and 405 in the envelope of the area the
 * path belongs to, HEAD and OPTIONS, no redirects, and paths the router cannot decode.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OPERATIONS } from "../../rest-shim/operations.js";
import { AREAS, ROUTES, type RouteDefinition } from "../../rest-shim/routes.js";
import { MARKETS_ERRORS } from "../../rest-shim/errors/markets.js";
import { READY, RECORD_JSON, happyExecutor, startShim, type RunningShim } from "./helpers.js";
import { READY_BODY } from "../support/ratings.js";
import { call, rawRequest } from "../support/http.js";
import { verifyBody } from "../support/verify.js";

const NOT_FOUND_VERIFY = verifyBody("VERIFY_ROUTE_NOT_FOUND", "No such verify route.");
const METHOD_NOT_ALLOWED_VERIFY = verifyBody("METHOD_NOT_ALLOWED", "Method not allowed on this route.");

/** A markets route, so the markets listener's 405 can be shown before document 3's routes exist. */
const MARKETS_PROBE: RouteDefinition = {
  method: "GET",
  path: "/api/v1/streams/:streamId",
  area: AREAS.markets,
  errors: MARKETS_ERRORS,
  operation: OPERATIONS.health,
  rules: {},
  rateLimits: [],
  unavailableCode: "SERVICE_UNAVAILABLE",
  variables: () => ({}),
  respond: (data) => ({ status: 200, body: Buffer.from(JSON.stringify({ item: data.health })) }),
};

let shim: RunningShim;
beforeAll(async () => {
  shim = await startShim({ routes: [...ROUTES, MARKETS_PROBE] });
});
afterAll(() => shim.close());

describe("documented routes on the HTTP listener", () => {
  it("GET /health answers 200 {\"status\":\"ok\"}", async () => {
    const response = await call(`${shim.httpUrl}/health`);
    expect(response.status).toBe(200);
    expect(response.body).toBe('{"status":"ok"}');
    expect(response.headers.get("content-type")).toBe("application/json");
  });

  it("GET /ready answers 200 when ready and 503 with the same body shape when not", async () => {
    const ready = await call(`${shim.httpUrl}/ready`);
    expect(ready.status).toBe(200);
    expect(ready.body).toBe(READY_BODY);

    const notReady = { ...READY, status: "NOT_READY", rpcConnected: false };
    const local = await startShim({ executor: happyExecutor().answer("Readiness", { data: { readiness: notReady } }) });
    try {
      const response = await call(`${local.httpUrl}/ready`);
      expect(response.status).toBe(503);
      expect(response.body).toBe(READY_BODY.replace('"ready"', '"not_ready"').replace('"rpc_connected":true', '"rpc_connected":false'));
    } finally {
      await local.close();
    }
  });

  it("GET /v1/verify/machines/{id} answers the record with no-store", async () => {
    const response = await call(`${shim.httpUrl}/v1/verify/machines/1`);
    expect(response.status).toBe(200);
    expect(response.body).toBe(RECORD_JSON);
    expect(response.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(response.headers.get("cache-control")).toBe("no-store");
  });

  it("HEAD on a GET route is the GET answer without a body", async () => {
    const response = await rawRequest(shim.httpPort, ["HEAD /v1/verify/machines/1 HTTP/1.1", "Host: t"]);
    expect(response.status).toBe(200);
    expect(response.headers["cache-control"]).toBe("no-store");
    expect(response.body).toBe("");
  });
});

describe("unknown paths", () => {
  it.each([
    "/v1/verify/",
    "/v1/verify/machines",
    "/v1/verify/machines/1/",
    "/v1/verify//machines/1",
    "/v1/verify/chip/challenge/",
    "/v1/verify/chip/other",
  ])("%s under /v1/verify/ answers 404 VERIFY_ROUTE_NOT_FOUND without redirecting", async (path) => {
    const before = shim.executor.calls.length;
    const response = await call(`${shim.httpUrl}${path}`);
    expect(response.status).toBe(404);
    expect(response.body).toBe(NOT_FOUND_VERIFY);
    expect(response.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(response.headers.get("location")).toBeNull();
    expect(shim.executor.calls.length).toBe(before);
  });

  it.each(["/", "/nope", "/v1/verify", "/V1/verify/machines/1", "/health/", "/api/v1/streams/1"])(
    "%s elsewhere on the HTTP listener answers 404 {\"detail\":\"Not Found\"}",
    async (path) => {
      const response = await call(`${shim.httpUrl}${path}`);
      expect(response.status).toBe(404);
      expect(response.body).toBe('{"detail":"Not Found"}');
      expect(response.headers.get("content-type")).toBe("application/json");
    },
  );

  it("an unknown POST that announces a body it never sends is answered at once", async () => {
    const response = await rawRequest(shim.httpPort, [
      "POST /v1/verify/chip/unknown HTTP/1.1",
      "Host: t",
      "Content-Type: application/json",
      "Content-Length: 10000",
    ]);
    expect(response.status).toBe(404);
    expect(response.body).toBe(NOT_FOUND_VERIFY);
    expect(response.headers.connection).toBe("close");
  });
});

describe("known path, other method", () => {
  it.each([
    ["POST", "/v1/verify/machines/1", "GET, HEAD"],
    ["DELETE", "/v1/verify/machines/1", "GET, HEAD"],
    ["GET", "/v1/verify/chip/challenge", "POST"],
    ["PUT", "/v1/verify/chip/evidence", "POST"],
    ["HEAD", "/v1/verify/chip/evidence", "POST"],
    ["OPTIONS", "/v1/verify/chip/challenge", "POST"],
    ["OPTIONS", "/v1/verify/machines/1", "GET, HEAD"],
  ])("%s %s answers 405 METHOD_NOT_ALLOWED with Allow: %s", async (method, path, allow) => {
    const before = shim.executor.calls.length;
    const response = await rawRequest(shim.httpPort, [`${method} ${path} HTTP/1.1`, "Host: t", "Content-Length: 0"]);
    expect(response.status).toBe(405);
    expect(response.headers.allow).toBe(allow);
    expect(response.headers["cache-control"]).toBe("no-store");
    if (method !== "HEAD") expect(response.body).toBe(METHOD_NOT_ALLOWED_VERIFY);
    expect(shim.executor.calls.length).toBe(before);
  });

  it("ratings routes answer 405 {\"detail\":\"Method Not Allowed\"} with Allow", async () => {
    const response = await call(`${shim.httpUrl}/health`, { method: "POST", body: "{}" });
    expect(response.status).toBe(405);
    expect(response.body).toBe('{"detail":"Method Not Allowed"}');
    expect(response.headers.get("allow")).toBe("GET, HEAD");
  });
});

describe("paths the router cannot decode", () => {
  it("a bad percent-escape in the machine ID answers 400 INVALID_MACHINE_ID without GraphQL", async () => {
    const before = shim.executor.calls.length;
    const response = await rawRequest(shim.httpPort, ["GET /v1/verify/machines/%zz HTTP/1.1", "Host: t"]);
    expect(response.status).toBe(400);
    expect(response.body).toBe(verifyBody("INVALID_MACHINE_ID", "The machine ID is not a canonical decimal string."));
    expect(shim.executor.calls.length).toBe(before);
  });

  it("a machine ID longer than any uint256 (over 100 characters) answers 400 INVALID_MACHINE_ID", async () => {
    const response = await call(`${shim.httpUrl}/v1/verify/machines/${"9".repeat(101)}`);
    expect(response.status).toBe(400);
    expect(JSON.parse(response.body).detail.code).toBe("INVALID_MACHINE_ID");
  });

  it("a bad escape on another method answers 405, elsewhere 404", async () => {
    const post = await rawRequest(shim.httpPort, ["POST /v1/verify/machines/%zz HTTP/1.1", "Host: t", "Content-Length: 0"]);
    expect(post.status).toBe(405);
    const other = await rawRequest(shim.httpPort, ["GET /v1/verify/%zz/1 HTTP/1.1", "Host: t"]);
    expect(other.status).toBe(404);
    expect(other.body).toBe(NOT_FOUND_VERIFY);
  });
});

describe("the markets listener", () => {
  it.each(["/api/v1/nope", "/api/v1/", "/health", "/v1/verify/machines/1", "/api/v1/streams/1/"])(
    "%s answers 404 in the markets envelope",
    async (path) => {
      const response = await call(`${shim.marketsUrl}${path}`);
      expect(response.status).toBe(404);
      expect(response.body).toBe('{"error":{"code":"NOT_FOUND","message":"Not found."}}');
      expect(response.headers.get("content-type")).toBe("application/json; charset=utf-8");
    },
  );

  it("a markets route answers, and 405 with Allow for another method", async () => {
    const ok = await call(`${shim.marketsUrl}/api/v1/streams/7`);
    expect(ok.status).toBe(200);
    expect(ok.body).toBe('{"item":{"status":"OK"}}');
    const response = await call(`${shim.marketsUrl}/api/v1/streams/7`, { method: "DELETE" });
    expect(response.status).toBe(405);
    expect(response.body).toBe('{"error":{"code":"METHOD_NOT_ALLOWED","message":"Method not allowed on this route."}}');
    expect(response.headers.get("allow")).toBe("GET, HEAD");
  });
});
