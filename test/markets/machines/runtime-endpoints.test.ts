/**
 * Runtime endpoints (document 3; public notes 2.4) through the REST shim and GraphQL: upsert with source forced to
 * manual (201 create / 200 update), provider key lowercased, URL normalised and validated, the auth token sealed at
 * rest and never echoed, delete 204 / NOT_FOUND, pages, and resolveForExecution for the task executor.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { graphql } from "../../support/platform.js";
import { api, bindMachine, expectMarketsError, expectOk, marketsServices, PLATFORM_START_TIMEOUT_MS, prismaOf, startMarketsPlatform, type MarketsPlatform } from "../helpers.js";
import { sessionOf } from "../../support/machine-sessions.js";

let p: MarketsPlatform;
let machineId: string;
beforeAll(async () => {
  p = await startMarketsPlatform();
  machineId = (await bindMachine(p, p.machine("active", 0))).id;
}, PLATFORM_START_TIMEOUT_MS);
afterAll(() => p?.close());

const path = (key = "") => `/machines/${machineId}/runtime-endpoints${key ? `/${key}` : ""}`;
const rows = () => prismaOf(p).marketRuntimeEndpoint.findMany({ where: { machineId }, orderBy: { providerKey: "asc" } });
const auditCount = () => prismaOf(p).marketAuditEvent.count({ where: { machineId } });

describe("PUT /machines/:machineId/runtime-endpoints/:providerKey", () => {
  it("201 on create with the documented view: manual source, lowercased key, normalised URL, no token echoed", async () => {
    const secret = "sk-live-0123456789";
    const answer = await api(p, "PUT", path("OpenAI"), {
      endpointBaseUrl: "https://Runtime.Example.com:8443/v1/chat?x=1#frag",
      authToken: secret,
      source: "agent",
      networkScope: "public",
    });
    const item = expectOk(answer, 201).item;
    expect(answer.text).not.toContain(secret);
    expect(item).toEqual({
      machineId,
      providerKey: "openai",
      source: "manual",
      endpointBaseUrl: "https://runtime.example.com:8443",
      label: "OPENAI runtime",
      authType: "bearer",
      hasAuthToken: true,
      modelAlias: null,
      networkScope: "public",
      probePath: "/health",
      status: "active",
      leaseExpiresAt: null,
      createdAt: item.createdAt,
      updatedAt: item.updatedAt,
    });
    const [row] = await rows();
    expect(Buffer.from(row!.authTokenCipher!).toString("utf8")).not.toContain(secret);
    expect(Buffer.from(row!.authTokenCipher!).length).toBe(12 + secret.length + 16);
    const events = await prismaOf(p).marketAuditEvent.findMany({ where: { machineId, kind: "runtime-endpoint.upserted" } });
    expect(events).toHaveLength(1);
    expect(JSON.stringify(events[0]!.data)).not.toContain(secret);
  });

  it("200 on update (replaces the endpoint; no token now)", async () => {
    const item = expectOk(await api(p, "PUT", path("openai"), { endpointBaseUrl: "http://10.0.0.5:8080", label: "gpu box", probePath: "/v1/models" })).item;
    expect(item).toMatchObject({ providerKey: "openai", endpointBaseUrl: "http://10.0.0.5:8080", label: "gpu box", authType: "none", hasAuthToken: false, probePath: "/v1/models" });
    expect((await rows())[0]!.authTokenCipher).toBeNull();
  });

  it("defaults the probe path of qvac to /v1/models", async () => {
    const item = expectOk(await api(p, "PUT", path("qvac"), { endpointBaseUrl: "http://127.0.0.1:11434" }), 201).item;
    expect(item.probePath).toBe("/v1/models");
  });

  it.each([
    ["a ftp URL", { endpointBaseUrl: "ftp://example.com" }],
    ["credentials in the URL", { endpointBaseUrl: "https://user:pw@example.com" }],
    ["not a URL", { endpointBaseUrl: "example.com" }],
    ["no URL", {}],
    ["an unknown authType", { endpointBaseUrl: "https://a.example", authType: "basic" }],
    ["a token with authType none", { endpointBaseUrl: "https://a.example", authType: "none", authToken: "t" }],
    ["bearer without a token", { endpointBaseUrl: "https://a.example", authType: "bearer" }],
    ["a relative probe path", { endpointBaseUrl: "https://a.example", probePath: "health" }],
    ["a bad leaseExpiresAt", { endpointBaseUrl: "https://a.example", leaseExpiresAt: "tomorrow" }],
  ])("400 VALIDATION_ERROR for %s; nothing changes", async (_name, body) => {
    const before = { rows: await rows(), audit: await auditCount() };
    expectMarketsError(await api(p, "PUT", path("openai"), body), 400, "VALIDATION_ERROR");
    expect({ rows: await rows(), audit: await auditCount() }).toEqual(before);
  });

  it("400 VALIDATION_ERROR for a provider key that is not one", async () => {
    expectMarketsError(await api(p, "PUT", path("bad%20key"), { endpointBaseUrl: "https://a.example" }), 400, "VALIDATION_ERROR");
  });
});

describe("reads and deletes", () => {
  it("lists in pages by provider key; reads one (any case of the key)", async () => {
    const all = expectOk(await api(p, "GET", path())).items;
    expect(all.map((e: any) => e.providerKey)).toEqual(["openai", "qvac"]);
    const first = expectOk(await api(p, "GET", `${path()}?limit=1`));
    expect(first.items.map((e: any) => e.providerKey)).toEqual(["openai"]);
    const second = expectOk(await api(p, "GET", `${path()}?limit=1&cursor=${first.nextCursor}`));
    expect(second).toEqual({ items: [all[1]] });
    expect(expectOk(await api(p, "GET", path("QVAC"))).item).toEqual(all[1]);
    expectMarketsError(await api(p, "GET", path("nothing")), 404, "NOT_FOUND");
  });

  it("DELETE answers 204 with an empty body, then 404 NOT_FOUND", async () => {
    const before = await auditCount();
    const answer = await api(p, "DELETE", path("qvac"));
    expect(answer.status).toBe(204);
    expect(answer.text).toBe("");
    expect((await rows()).map((r) => r.providerKey)).toEqual(["openai"]);
    expect(await auditCount()).toBe(before + 1);
    expectMarketsError(await api(p, "DELETE", path("qvac")), 404, "NOT_FOUND");
    expect(await auditCount()).toBe(before + 1);
  });
});

describe("resolveForExecution", () => {
  it("gives the executor the URL and the decrypted token, in its transaction", async () => {
    expectOk(await api(p, "PUT", path("exec"), { endpointBaseUrl: "http://127.0.0.1:7000/x", authType: "api-key", authToken: "key-123" }), 201);
    const { runtimeEndpoints, store } = marketsServices(p);
    const resolved = await store.write((tx) => runtimeEndpoints.resolveForExecution(tx, machineId, "EXEC"));
    expect(resolved).toEqual({
      providerKey: "exec",
      endpointBaseUrl: "http://127.0.0.1:7000",
      authType: "api-key",
      authToken: "key-123",
      probePath: "/health",
      modelAlias: null,
      source: "manual",
    });
    await expect(store.write((tx) => runtimeEndpoints.resolveForExecution(tx, machineId, "none"))).rejects.toMatchObject({ code: "NOT_FOUND" });
  });
});

describe("GraphQL", () => {
  it("serves the same operations; the view has hasAuthToken and no token field", async () => {
    const { body } = await graphql(
      p.graphql,
      `query ($id: String!) { runtimeEndpoint(machineId: $id, providerKey: "exec") { providerKey source authType hasAuthToken live } }`,
      { id: machineId },
    );
    expect(body.data.runtimeEndpoint).toEqual({ providerKey: "exec", source: "MANUAL", authType: "API_KEY", hasAuthToken: true, live: true });
    const upsert = `mutation ($id: String!, $s: String) { upsertRuntimeEndpoint(machineId: $id, providerKey: "x", machineSession: $s, input: { endpointBaseUrl: "ftp://x" }) { created } }`;
    const anonymous = await graphql(p.graphql, upsert, { id: machineId });
    expect(anonymous.body.errors?.[0]?.extensions?.code).toBe("MACHINE_IDENTITY_PROOF_REQUIRED");
    const bad = await graphql(p.graphql, upsert, { id: machineId, s: sessionOf(machineId) });
    expect(bad.body.errors?.[0]?.extensions?.code).toBe("VALIDATION_ERROR");
    const nested = await graphql(p.graphql, `{ machine(machineId: "${p.machine("active", 0).machineId}") { marketMachine { runtimeEndpoints { items { providerKey } } } } }`);
    expect(nested.body.data.machine.marketMachine.runtimeEndpoints.items.map((e: any) => e.providerKey)).toEqual(["exec", "openai"]);
  });
});
