/**
 * Request logs: one JSON line per request on every listener (method, route pattern, status, duration, request ID,
 * client IP), the request ID taken from `x-request-id` (when well formed) and returned in it, carried from the REST
 * shim to GraphQL, and no token, key or nonce in any line across a full verify and markets flow.
 */
import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHttpExecutor } from "../../rest-shim/http-executor.js";
import { createLog } from "../../subgraphs/shared/observability/log.js";
import { BEARER, ONBOARDING_TOKEN, send } from "../support/http.js";
import { graphql } from "../support/platform.js";
import { api, bindMachine, expectOk, startMarketsPlatform, type MarketsPlatform } from "../markets/helpers.js";
import { freshEvidence, postEvidence } from "../verify/helpers.js";
import { VERIFY_OPERATIONS } from "../../rest-shim/routes/verify.js";

const lines: string[] = [];
const capture = { write: (line: string) => void lines.push(line) };
let p: MarketsPlatform;
beforeAll(async () => {
  p = await startMarketsPlatform({ LOG_LEVEL: "info", INTERNAL_TOKEN: "internal-token-for-log-test-0123456789" }, { logDestination: capture });
});
afterAll(() => p?.close());

const requestLines = () => lines.map((line) => JSON.parse(line)).filter((entry) => entry.msg === "request");

describe("request log lines", () => {
  it("one JSON line per request with the route pattern, and the client's x-request-id echoed and logged", async () => {
    const machine = p.machine("active");
    const answer = await send(`${p.http}/v1/verify/machines/${machine.machineId}`, { method: "GET", headers: { accept: "application/json", "x-request-id": "trace-abc.123" } });
    expect(answer.status).toBe(200);
    expect(answer.headers["x-request-id"]).toBe("trace-abc.123");
    const entry = requestLines().find((line) => line.requestId === "trace-abc.123");
    expect(entry).toMatchObject({ level: 30, listener: "http", method: "GET", route: "/v1/verify/machines/:machineId", status: 200, clientIp: "127.0.0.1" });
    expect(typeof entry.durationMs).toBe("number");
    expect(typeof entry.time).toBe("string");
    // The raw path (with its identifier) is not logged.
    expect(JSON.stringify(entry)).not.toContain(`/machines/${machine.machineId}`);
  });

  it("a malformed or missing x-request-id gets a new UUID, returned and logged", async () => {
    for (const given of [undefined, "x".repeat(129), "id with spaces", "quote\"d"]) {
      const headers: Record<string, string> = { accept: "application/json" };
      if (given !== undefined) headers["x-request-id"] = given;
      const answer = await send(`${p.http}/health`, { method: "GET", headers });
      const id = answer.headers["x-request-id"] as string;
      expect(id).toMatch(/^[0-9a-f-]{36}$/);
      expect(requestLines().some((line) => line.requestId === id && line.route === "/health")).toBe(true);
    }
  });

  it("unknown paths are logged as `unmatched`, GraphQL requests on the GraphQL listener", async () => {
    const unknown = await send(`${p.markets}/no/such/secret-path`, { method: "GET", headers: { "x-request-id": "unmatched-1" } });
    expect(unknown.status).toBe(404);
    const gql = await graphql(p.graphql, "{ __typename }", {}, { "x-request-id": "gql-1", "apollo-require-preflight": "1" });
    expect(gql.status).toBe(200);
    expect(requestLines().find((line) => line.requestId === "unmatched-1")).toMatchObject({ listener: "markets", route: "unmatched", status: 404 });
    expect(requestLines().find((line) => line.requestId === "gql-1")).toMatchObject({ listener: "graphql", route: "/graphql", method: "POST", status: 200 });
  });

  it("the REST shim's executor over HTTP carries the request ID to the GraphQL listener", async () => {
    const executor = createHttpExecutor(p.graphql, { internalToken: "internal-token-for-log-test-0123456789" });
    try {
      const result = await executor.execute(VERIFY_OPERATIONS.verifyMachine, { machineId: p.machine("active").machineId }, { clientIp: "127.0.0.9", requestId: "hop-42" });
      expect(result.errors).toBeUndefined();
    } finally {
      await executor.close?.();
    }
    expect(requestLines().find((line) => line.requestId === "hop-42")).toMatchObject({ listener: "graphql", route: "/graphql", status: 200 });
  });
});

describe("redaction", () => {
  it("no token, key or nonce reaches a log line across a verify and markets flow", async () => {
    // Document 1: challenge (nonce) and evidence under the onboarding token.
    const { challenge, evidence, machine } = await freshEvidence(p);
    const receipt = await postEvidence(p, evidence);
    expect(receipt.status, receipt.text).toBe(202);
    const viaGraphql = await graphql(p.graphql, "mutation ($id: String!) { createChipChallenge(machineId: $id) { nonce } }", { id: machine.machineId }, { authorization: BEARER });
    const graphqlNonce = viaGraphql.body.data.createChipChallenge.nonce as string;
    // Document 3: bind a machine with a signed identity proof, enrol an agent (one-time token), heartbeat with it.
    const bound = p.machine("active", 0);
    const record = await bindMachine(p, bound);
    const { agentToken } = expectOk(await api(p, "POST", `/machines/${record.id}/agents/enrollment`, { allowedProviderKeys: ["qvac"] }), 201).item;
    const heartbeat = await api(p, "POST", "/machine-agents/heartbeat", { leaseSeconds: 60, endpoints: [{ providerKey: "qvac", endpointBaseUrl: "http://127.0.0.1:11434/v1" }] }, { "x-agent-pairing-token": agentToken });
    expect(heartbeat.status, heartbeat.text).toBe(200);

    const secrets = {
      onboardingToken: ONBOARDING_TOKEN,
      nonce: challenge.nonce,
      graphqlNonce,
      agentToken,
      controllerKey: machine.controllerPrivateKey.slice(2),
      boundControllerKey: bound.controllerPrivateKey.slice(2),
      internalToken: "internal-token-for-log-test-0123456789",
      providerToken: p.demo.markets!.provider.authToken,
    };
    const text = lines.join("");
    expect(requestLines().length).toBeGreaterThanOrEqual(6);
    for (const [name, secret] of Object.entries(secrets)) expect(text.includes(secret), name).toBe(false);
  });

  it("the logger redacts secret members by configuration, at any depth", () => {
    const written: string[] = [];
    const log = createLog({ logLevel: "info", development: false }, { write: (line: string) => void written.push(line) });
    log.info({ authorization: "Bearer sekrit-1", headers: { "x-agent-pairing-token": "sekrit-2" }, body: { input: { agentToken: "sekrit-3", nonce: "sekrit-4" } }, privateKey: "sekrit-5" }, "probe");
    expect(written).toHaveLength(1);
    expect(written[0]).not.toMatch(/sekrit/);
    expect(JSON.parse(written[0]!)).toMatchObject({ authorization: "[redacted]", headers: { "x-agent-pairing-token": "[redacted]" }, privateKey: "[redacted]" });
  });
});
