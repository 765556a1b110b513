/**
 * Every state change and its audit event commit in one transaction: with a failure injected after both were
 * written (MarketsStore.beforeCommit), the request fails with 500 and neither the change nor the event exists; without
 * it, the same request writes both. One case per write operation of the machines, runtime endpoints and agents.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  api,
  bindMachine,
  expectMarketsError,
  expectOk,
  marketsServices,
  PLATFORM_START_TIMEOUT_MS,
  prismaOf,
  signedProof,
  startMarketsPlatform,
  type HttpAnswer,
  type MarketsPlatform,
} from "./helpers.js";

let p: MarketsPlatform;
let machineId: string;
let agent: { id: string; token: string };
beforeAll(async () => {
  p = await startMarketsPlatform();
  machineId = (await bindMachine(p, p.machine("active", 0))).id;
  const enrolled = expectOk(await api(p, "POST", `/machines/${machineId}/agents/enrollment`, { allowedProviderKeys: ["qvac"] }), 201).item;
  agent = { id: enrolled.agent.id, token: enrolled.agentToken };
  expectOk(await api(p, "PUT", `/machines/${machineId}/runtime-endpoints/keep`, { endpointBaseUrl: "http://127.0.0.1:1" }), 201);
}, PLATFORM_START_TIMEOUT_MS);
afterAll(() => p?.close());

/** Everything the markets writes of this half touch, read back. */
async function snapshot() {
  const prisma = prismaOf(p);
  return {
    machines: await prisma.marketMachine.findMany({ orderBy: { id: "asc" } }),
    challenges: await prisma.marketIdentityChallenge.findMany({ orderBy: { id: "asc" } }),
    endpoints: await prisma.marketRuntimeEndpoint.findMany({ orderBy: [{ machineId: "asc" }, { providerKey: "asc" }] }),
    agents: await prisma.marketMachineAgent.findMany({ orderBy: { id: "asc" } }),
    audit: await prisma.marketAuditEvent.findMany({ orderBy: { id: "asc" } }),
  };
}

interface Case {
  kind: string;
  /** Prepares what the request needs (outside the injected failure) and returns the request. */
  request(): Promise<() => Promise<HttpAnswer>>;
  ok: number;
}

const CASES: Case[] = [
  {
    kind: "machine.created",
    ok: 201,
    async request() {
      const machine = p.machine("active", 1);
      const proof = await signedProof(p, machine.did, machine.controllerPrivateKey);
      return () => api(p, "POST", "/machines", { displayName: "m", identityRef: machine.did, identityProof: { challengeId: proof.challengeId, signature: proof.signature } });
    },
  },
  { kind: "machine.updated", ok: 200, request: async () => () => api(p, "PATCH", `/machines/${machineId}`, { displayName: "renamed" }) },
  {
    kind: "runtime-endpoint.upserted",
    ok: 201,
    request: async () => () => api(p, "PUT", `/machines/${machineId}/runtime-endpoints/openai`, { endpointBaseUrl: "https://a.example", authToken: "t" }),
  },
  { kind: "runtime-endpoint.deleted", ok: 204, request: async () => () => api(p, "DELETE", `/machines/${machineId}/runtime-endpoints/keep`) },
  {
    kind: "machine-agent.enrolled",
    ok: 201,
    request: async () => () => api(p, "POST", `/machines/${machineId}/agents/enrollment`, { allowedProviderKeys: ["x"] }),
  },
  {
    kind: "machine-agent.heartbeat",
    ok: 200,
    request: async () => () =>
      api(p, "POST", "/machine-agents/heartbeat", { agentToken: agent.token, leaseSeconds: 30, endpoint: { providerKey: "qvac", endpointBaseUrl: "http://127.0.0.1:2" } }),
  },
  { kind: "machine-agent.revoked", ok: 200, request: async () => () => api(p, "POST", `/machines/${machineId}/agents/${agent.id}/revoke`) },
];

describe.each(CASES.map((c) => [c.kind, c] as const))("%s", (kind, c) => {
  it("a failure after the writes leaves neither the change nor the event; then both commit", async () => {
    const send = await c.request();
    const before = await snapshot();
    const { store } = marketsServices(p);
    store.beforeCommit = () => {
      throw new Error("injected after the audit write");
    };
    try {
      expectMarketsError(await send(), 500, "INTERNAL_ERROR");
    } finally {
      store.beforeCommit = null;
    }
    expect(await snapshot()).toEqual(before);
    expect((await send()).status).toBe(c.ok);
    const after = await snapshot();
    expect(after.audit.slice(before.audit.length).map((event) => event.kind)).toEqual([kind]);
  });
});
