/**
 * The markets listener's optional platform key (MARKETS_API_KEYS; public notes 2.1: `x-api-key`, AUTH_REQUIRED when
 * missing), over real sockets: with keys configured, a request without exactly one valid `x-api-key` is 401
 * AUTH_REQUIRED in the markets envelope before anything else (unknown paths, header rules and the per-IP limit
 * included; such requests spend no rate-limit budget and never reach GraphQL), `GET /health` is exempt, the other
 * listeners are untouched; without keys the listener behaves as before, whatever `x-api-key` a client sends.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../subgraphs/shared/config.js";
import { testConfig } from "../support/config.js";
import { rawRequest, send, type HttpAnswer } from "../support/http.js";
import { happyExecutor, startShim, type RunningShim } from "./helpers.js";

const KEY_ONE = "platform-key-one-0123456789abcdef";
const KEY_TWO = "platform-key-two-0123456789abcdef";
const AUTH_REQUIRED = '{"error":{"code":"AUTH_REQUIRED","message":"An API key is required."}}';
const POLICIES = { data: { marketPolicies: { items: [], nextCursor: null } } };

const executor = () => happyExecutor().answer("MarketPolicies", POLICIES);

function expectAuthRequired(answer: HttpAnswer) {
  expect({ status: answer.status, body: answer.text }).toEqual({ status: 401, body: AUTH_REQUIRED });
  expect(answer.headers["content-type"]).toBe("application/json; charset=utf-8");
  expect(answer.headers["cache-control"]).toBe("no-store");
}

describe("MARKETS_API_KEYS set", () => {
  let shim: RunningShim;
  const url = (path: string) => `${shim.marketsUrl}${path}`;
  const policies = (headers: Record<string, string> = {}, localAddress?: string) => send(url("/api/v1/policies"), { method: "GET", headers, localAddress });

  beforeAll(async () => {
    shim = await startShim({
      executor: executor(),
      config: testConfig({ MARKETS_API_KEYS: ` ${KEY_ONE} , ${KEY_TWO} `, RATE_LIMIT_MARKETS_PER_IP: "3" }),
    });
  });
  afterAll(() => shim?.close());

  it("a missing key is 401 AUTH_REQUIRED, and GraphQL is never called", async () => {
    const calls = shim.executor.calls.length;
    expectAuthRequired(await policies({}, "127.0.0.2"));
    expect(shim.executor.calls.length).toBe(calls);
  });

  it.each([
    ["another value", "platform-key-three-0123456789abcdef"],
    ["the key in another case", KEY_ONE.toUpperCase()],
    ["the key with a suffix", `${KEY_ONE}x`],
    ["a prefix of the key", KEY_ONE.slice(0, -1)],
    ["both keys in one value", `${KEY_ONE},${KEY_TWO}`],
    ["the key as a bearer credential", `Bearer ${KEY_ONE}`],
    ["an empty value", ""],
  ])("a wrong key (%s) is 401 AUTH_REQUIRED", async (_label, value) => {
    const calls = shim.executor.calls.length;
    expectAuthRequired(await policies({ "x-api-key": value }, "127.0.0.3"));
    expect(shim.executor.calls.length).toBe(calls);
  });

  it("a key in Authorization instead of x-api-key is 401 AUTH_REQUIRED", async () => {
    expectAuthRequired(await policies({ authorization: `Bearer ${KEY_ONE}` }, "127.0.0.3"));
  });

  it("a repeated x-api-key header is 401 AUTH_REQUIRED even when both are right", async () => {
    const answer = await rawRequest(shim.marketsPort, [
      "GET /api/v1/policies HTTP/1.1",
      "Host: localhost",
      `x-api-key: ${KEY_ONE}`,
      `x-api-key: ${KEY_ONE}`,
      "Connection: close",
    ]);
    expect({ status: answer.status, body: answer.body }).toEqual({ status: 401, body: AUTH_REQUIRED });
  });

  it("either configured key is let through to the route", async () => {
    for (const key of [KEY_ONE, KEY_TWO]) {
      const calls = shim.executor.calls.length;
      const answer = await policies({ "x-api-key": key }, "127.0.0.4");
      expect({ status: answer.status, body: answer.text }).toEqual({ status: 200, body: '{"items":[]}' });
      expect(shim.executor.calls.slice(calls).map((call) => call.operation)).toEqual(["MarketPolicies"]);
    }
  });

  it("comes before the 404 of an unknown path, the documentation pages and the route's header rules", async () => {
    expectAuthRequired(await send(url("/api/v1/no-such-route"), { method: "GET" }));
    expectAuthRequired(await send(url("/openapi.json"), { method: "GET" }));
    const notFound = await send(url("/api/v1/no-such-route"), { method: "GET", headers: { "x-api-key": KEY_ONE } });
    expect({ status: notFound.status, code: notFound.json().error.code }).toEqual({ status: 404, code: "NOT_FOUND" });
    expect((await send(url("/openapi.json"), { method: "GET", headers: { "x-api-key": KEY_ONE } })).status).toBe(200);
    // A body route without Content-Type would be VALIDATION_ERROR; without a key it is AUTH_REQUIRED first.
    expectAuthRequired(await send(url("/api/v1/policies"), { method: "POST", body: "{}" }));
  });

  it("answers before the body is read: an announced body never sent gets 401 and Connection: close", async () => {
    const answer = await rawRequest(shim.marketsPort, [
      "POST /api/v1/policies HTTP/1.1",
      "Host: localhost",
      "Content-Type: application/json",
      "Content-Length: 1000",
    ]);
    expect({ status: answer.status, body: answer.body }).toEqual({ status: 401, body: AUTH_REQUIRED });
    expect(answer.headers.connection).toBe("close");
  });

  it("comes before the per-IP limit: requests without a key spend none of the address's budget", async () => {
    const address = "127.0.0.9";
    for (let i = 0; i < 5; i++) expectAuthRequired(await policies({}, address));
    for (let i = 0; i < 3; i++) expect((await policies({ "x-api-key": KEY_ONE }, address)).status).toBe(200);
    const limited = await policies({ "x-api-key": KEY_ONE }, address);
    expect({ status: limited.status, code: limited.json().error.code }).toEqual({ status: 429, code: "RATE_LIMITED" });
    // Over the limit, a request without a key is still told about the key.
    expectAuthRequired(await policies({}, address));
  });

  it("GET and HEAD /health are exempt (answered as without keys: this listener has no such route)", async () => {
    const health = await send(url("/health"), { method: "GET" });
    expect({ status: health.status, code: health.json().error.code }).toEqual({ status: 404, code: "NOT_FOUND" });
    expect((await send(url("/health"), { method: "HEAD" })).status).toBe(404);
    expectAuthRequired(await send(url("/health"), { method: "POST", body: "" }));
  });

  it("the documents 1 and 2 listener needs no key", async () => {
    const answer = await send(`${shim.httpUrl}/health`, { method: "GET" });
    expect({ status: answer.status, body: answer.text }).toEqual({ status: 200, body: '{"status":"ok"}' });
  });
});

describe("MARKETS_API_KEYS unset", () => {
  let shim: RunningShim;
  beforeAll(async () => {
    shim = await startShim({ executor: executor() });
  });
  afterAll(() => shim?.close());

  it("every request reaches its route as before, with or without any x-api-key", async () => {
    const variants: Record<string, string>[] = [{}, { "x-api-key": "anything" }, { "x-api-key": KEY_ONE }];
    for (const headers of variants) {
      const answer = await send(`${shim.marketsUrl}/api/v1/policies`, { method: "GET", headers });
      expect({ status: answer.status, body: answer.text }).toEqual({ status: 200, body: '{"items":[]}' });
    }
    const notFound = await send(`${shim.marketsUrl}/api/v1/no-such-route`, { method: "GET" });
    expect({ status: notFound.status, code: notFound.json().error.code }).toEqual({ status: 404, code: "NOT_FOUND" });
  });
});

describe("MARKETS_API_KEYS configuration", () => {
  it("is a comma-separated list, blanks dropped; a key under 16 characters is refused at start", () => {
    expect(loadConfig({}).markets.apiKeys).toEqual([]);
    expect(loadConfig({ MARKETS_API_KEYS: ` ${KEY_ONE},,${KEY_TWO} ` }).markets.apiKeys).toEqual([KEY_ONE, KEY_TWO]);
    expect(() => loadConfig({ MARKETS_API_KEYS: `${KEY_ONE},short-key` })).toThrow("MARKETS_API_KEYS: each key needs at least 16 characters");
  });
});
