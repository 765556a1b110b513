/**
 * Machine-side agents (document 3; public notes 2.4): enrolment with a one-time token stored only as a hash, the
 * heartbeat's three credential carriers, leases (now + leaseSeconds; a lapsed lease is not served as live),
 * revocation (AGENT_PAIRING_INACTIVE), allowedProviderKeys (AGENT_POLICY_DENIED), each refusal changing nothing.
 */
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { graphql } from "../../support/platform.js";
import { api, bindMachine, expectMarketsError, expectOk, marketsServices, PLATFORM_START_TIMEOUT_MS, prismaOf, startMarketsPlatform, type MarketsPlatform } from "../helpers.js";

let p: MarketsPlatform;
let machineId: string;
let offsetMs = 0;
const clock = { now: () => Date.now() + offsetMs };
beforeAll(async () => {
  p = await startMarketsPlatform({}, { clock });
  machineId = (await bindMachine(p, p.machine("active", 0))).id;
}, PLATFORM_START_TIMEOUT_MS);
afterAll(() => p?.close());

async function enroll(allowedProviderKeys = ["qvac", "openai"], label?: string) {
  const item = expectOk(await api(p, "POST", `/machines/${machineId}/agents/enrollment`, { allowedProviderKeys, label }), 201).item;
  return item as { agent: any; agentToken: string };
}

const heartbeatBody = (extra: Record<string, unknown> = {}) => ({
  leaseSeconds: 60,
  endpoints: [{ providerKey: "QVAC", endpointBaseUrl: "http://127.0.0.1:11434/v1" }],
  ...extra,
});

const state = async () => ({
  agents: await prismaOf(p).marketMachineAgent.findMany({ orderBy: { id: "asc" } }),
  endpoints: await prismaOf(p).marketRuntimeEndpoint.findMany({ orderBy: { providerKey: "asc" } }),
  audit: await prismaOf(p).marketAuditEvent.count(),
});

describe("POST /machines/:machineId/agents/enrollment", () => {
  it("201 with the agent and a one-time token; only the token's SHA-256 is stored", async () => {
    const { agent, agentToken } = await enroll(["QVAC"], "jetson");
    expect(agentToken).toMatch(/^mat_[A-Za-z0-9_-]{43}$/);
    expect(agent).toMatchObject({ machineId, label: "jetson", status: "enrolled", allowedProviderKeys: ["qvac"], lastSeenAt: null });
    const row = await prismaOf(p).marketMachineAgent.findUniqueOrThrow({ where: { id: agent.id } });
    expect(Buffer.from(row.tokenHash)).toEqual(createHash("sha256").update(agentToken).digest());
    expect(JSON.stringify(row)).not.toContain(agentToken.slice(4));
    const listed = expectOk(await api(p, "GET", `/machines/${machineId}/agents`)).items;
    expect(listed.find((a: any) => a.id === agent.id)).toEqual(agent);
    expect(JSON.stringify(listed)).not.toContain(agentToken);
  });

  it.each([
    ["no allowedProviderKeys", {}],
    ["an empty list", { allowedProviderKeys: [] }],
    ["a duplicate", { allowedProviderKeys: ["a", "A"] }],
    ["a bad key", { allowedProviderKeys: ["no spaces"] }],
  ])("400 VALIDATION_ERROR for %s", async (_name, body) => {
    const before = await state();
    expectMarketsError(await api(p, "POST", `/machines/${machineId}/agents/enrollment`, body), 400, "VALIDATION_ERROR");
    expect(await state()).toEqual(before);
  });
});

describe("POST /machine-agents/heartbeat", () => {
  it.each([
    ["the body", (token: string) => [{ ...heartbeatBody(), agentToken: token }, {}]],
    ["x-agent-pairing-token", (token: string) => [heartbeatBody(), { "x-agent-pairing-token": token }]],
    ["Authorization: Bearer", (token: string) => [heartbeatBody(), { authorization: `Bearer ${token}` }]],
  ] as const)("takes the token in %s: agent active, endpoint upserted as agent with lease = now + leaseSeconds", async (_name, carrier) => {
    const { agent, agentToken } = await enroll();
    const [body, headers] = carrier(agentToken);
    offsetMs = 1_000_000;
    let result;
    try {
      result = expectOk(await api(p, "POST", "/machine-agents/heartbeat", body, headers as Record<string, string>)).item;
    } finally {
      offsetMs = 0;
    }
    const lease = result.leaseExpiresAt;
    expect(Math.abs(Date.parse(lease) - (Date.parse(result.agent.lastSeenAt) + 60_000))).toBe(0);
    expect(Date.parse(result.agent.lastSeenAt) - Date.now()).toBeGreaterThan(900_000);
    expect(result.agent).toMatchObject({ id: agent.id, status: "active" });
    expect(result.endpoints).toEqual([
      expect.objectContaining({ providerKey: "qvac", source: "agent", endpointBaseUrl: "http://127.0.0.1:11434", leaseExpiresAt: lease, status: "active" }),
    ]);
    const row = await prismaOf(p).marketRuntimeEndpoint.findUniqueOrThrow({ where: { machineId_providerKey: { machineId, providerKey: "qvac" } } });
    expect(row).toMatchObject({ source: "agent", agentId: agent.id, leaseExpiresAt: new Date(lease) });
    const events = await prismaOf(p).marketAuditEvent.findMany({ where: { kind: "machine-agent.heartbeat", actorId: agent.id } });
    expect(events).toHaveLength(1);
    expect(events[0]!.actorType).toBe("machine-agent");
  });

  it("a lapsed lease is served as unreachable and is not resolved for execution; the next heartbeat renews it", async () => {
    const { agentToken } = await enroll();
    expectOk(await api(p, "POST", "/machine-agents/heartbeat", { ...heartbeatBody({ leaseSeconds: 30 }), agentToken }));
    const read = async () => expectOk(await api(p, "GET", `/machines/${machineId}/runtime-endpoints/qvac`)).item;
    expect((await read()).status).toBe("active");
    const { runtimeEndpoints, store } = marketsServices(p);
    offsetMs = 31_000;
    try {
      expect((await read()).status).toBe("unreachable");
      await expect(store.write((tx) => runtimeEndpoints.resolveForExecution(tx, machineId, "qvac"))).rejects.toMatchObject({ code: "NOT_FOUND" });
      expectOk(await api(p, "POST", "/machine-agents/heartbeat", { ...heartbeatBody({ leaseSeconds: 30 }), agentToken }));
      expect((await read()).status).toBe("active");
      expect((await store.write((tx) => runtimeEndpoints.resolveForExecution(tx, machineId, "qvac"))).source).toBe("agent");
    } finally {
      offsetMs = 0;
    }
  });

  it("an endpoint token in a heartbeat is sealed for its machine: never echoed, and opened for execution", async () => {
    const { agentToken } = await enroll(["openai"]);
    const body = { agentToken, leaseSeconds: 60, endpoints: [{ providerKey: "openai", endpointBaseUrl: "http://127.0.0.1:7001", authToken: "agent-secret-1" }] };
    const answer = await api(p, "POST", "/machine-agents/heartbeat", body);
    const item = expectOk(answer).item;
    expect(answer.text).not.toContain("agent-secret-1");
    expect(item.endpoints).toEqual([expect.objectContaining({ providerKey: "openai", source: "agent", hasAuthToken: true })]);
    const { store, runtimeEndpoints } = marketsServices(p);
    const resolved = await store.write((tx) => runtimeEndpoints.resolveForExecution(tx, machineId, "openai"));
    expect(resolved).toMatchObject({ authToken: "agent-secret-1", authType: "bearer" });
  });

  it("a revoked or unknown token with a bad body: the credential's code, not VALIDATION_ERROR; nothing changes", async () => {
    const { agent, agentToken } = await enroll();
    expectOk(await api(p, "POST", `/machines/${machineId}/agents/${agent.id}/revoke`));
    const before = await state();
    const bad = { leaseSeconds: 0, endpoints: [] };
    expectMarketsError(await api(p, "POST", "/machine-agents/heartbeat", { ...bad, agentToken }), 409, "AGENT_PAIRING_INACTIVE");
    expectMarketsError(await api(p, "POST", "/machine-agents/heartbeat", { ...bad, agentToken: `mat_${"B".repeat(43)}` }), 401, "AGENT_AUTH_INVALID");
    const live = await enroll();
    expectMarketsError(await api(p, "POST", "/machine-agents/heartbeat", { ...bad, agentToken: live.agentToken }), 400, "VALIDATION_ERROR");
    expect((await state()).endpoints).toEqual(before.endpoints);
    expect((await state()).audit).toBe(before.audit + 1); // the second enrolment's event only
  });

  it("401 AGENT_AUTH_REQUIRED without a credential, 401 AGENT_AUTH_INVALID for an unknown or malformed one; nothing changes", async () => {
    const before = await state();
    expectMarketsError(await api(p, "POST", "/machine-agents/heartbeat", heartbeatBody()), 401, "AGENT_AUTH_REQUIRED");
    expectMarketsError(await api(p, "POST", "/machine-agents/heartbeat", { ...heartbeatBody(), agentToken: `mat_${"A".repeat(43)}` }), 401, "AGENT_AUTH_INVALID");
    expectMarketsError(await api(p, "POST", "/machine-agents/heartbeat", heartbeatBody(), { authorization: "Basic abc" }), 401, "AGENT_AUTH_INVALID");
    expectMarketsError(await api(p, "POST", "/machine-agents/heartbeat", heartbeatBody(), { "x-agent-pairing-token": "nope" }), 401, "AGENT_AUTH_INVALID");
    expect(await state()).toEqual(before);
  });

  it("403 AGENT_POLICY_DENIED for a provider key outside allowedProviderKeys; nothing changes", async () => {
    const { agentToken } = await enroll(["qvac"]);
    const before = await state();
    const body = { agentToken, leaseSeconds: 60, endpoints: [{ providerKey: "qvac", endpointBaseUrl: "http://127.0.0.1:1" }, { providerKey: "openai", endpointBaseUrl: "http://127.0.0.1:2" }] };
    expectMarketsError(await api(p, "POST", "/machine-agents/heartbeat", body), 403, "AGENT_POLICY_DENIED");
    expect(await state()).toEqual(before);
  });

  it.each([
    ["leaseSeconds 0", { leaseSeconds: 0 }],
    ["leaseSeconds over the maximum", { leaseSeconds: 86_401 }],
    ["no endpoints", { endpoints: [] }],
    ["a bad URL", { endpoints: [{ providerKey: "qvac", endpointBaseUrl: "file:///etc" }] }],
  ])("400 VALIDATION_ERROR for %s; nothing changes", async (_name, extra) => {
    const { agentToken } = await enroll();
    const before = await state();
    expectMarketsError(await api(p, "POST", "/machine-agents/heartbeat", { ...heartbeatBody(extra), agentToken }), 400, "VALIDATION_ERROR");
    expect(await state()).toEqual(before);
  });

  it("a revoked agent gets 409 AGENT_PAIRING_INACTIVE and changes nothing", async () => {
    const { agent, agentToken } = await enroll();
    const revoked = expectOk(await api(p, "POST", `/machines/${machineId}/agents/${agent.id}/revoke`)).item;
    expect(revoked).toMatchObject({ id: agent.id, status: "revoked" });
    expect(revoked.revokedAt).not.toBeNull();
    const before = await state();
    expectMarketsError(await api(p, "POST", "/machine-agents/heartbeat", { ...heartbeatBody(), agentToken }), 409, "AGENT_PAIRING_INACTIVE");
    expect(await state()).toEqual(before);
    // Revoking again changes nothing.
    expect(expectOk(await api(p, "POST", `/machines/${machineId}/agents/${agent.id}/revoke`)).item).toEqual(revoked);
    expect(await state()).toEqual(before);
    expectMarketsError(await api(p, "POST", `/machines/${machineId}/agents/magt_000000000000000000000000/revoke`), 404, "NOT_FOUND");
  });

  it("a hot agent sees a change of its machine's stored proof at once: refused while its signer does not control the identity, changing nothing", async () => {
    const { agentToken } = await enroll();
    const beat = () => api(p, "POST", "/machine-agents/heartbeat", { ...heartbeatBody(), agentToken });
    expectOk(await beat());
    const machine = await prismaOf(p).marketMachine.findUniqueOrThrow({ where: { id: machineId } });
    const proof = machine.identityProof as Record<string, unknown>;
    await prismaOf(p).marketMachine.update({ where: { id: machineId }, data: { identityProof: { ...proof, signerAddress: "0x000000000000000000000000000000000000dEaD" } } });
    try {
      const before = await state();
      expectMarketsError(await beat(), 409, "MACHINE_NOT_ACTIVATED");
      expect(await state()).toEqual(before);
    } finally {
      await prismaOf(p).marketMachine.update({ where: { id: machineId }, data: { identityProof: proof as never } });
    }
    expectOk(await beat());
  });

  it("GraphQL: the same heartbeat and codes", async () => {
    const { agentToken } = await enroll();
    const mutation = `mutation ($token: String, $input: HeartbeatInput!) { machineAgentHeartbeat(agentToken: $token, input: $input) { agent { status } endpoints { source providerKey } } }`;
    const input = { leaseSeconds: 10, endpoints: [{ providerKey: "openai", endpointBaseUrl: "http://127.0.0.1:3" }] };
    const ok = await graphql(p.graphql, mutation, { token: agentToken, input });
    expect(ok.body.data.machineAgentHeartbeat).toEqual({ agent: { status: "ACTIVE" }, endpoints: [{ source: "AGENT", providerKey: "openai" }] });
    const missing = await graphql(p.graphql, mutation, { token: null, input });
    expect(missing.body.errors?.[0]?.extensions?.code).toBe("AGENT_AUTH_REQUIRED");
  });
});
