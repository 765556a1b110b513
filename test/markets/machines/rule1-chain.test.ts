/**
 * Global rule 1 follows the chain (docs/markets-identity.md "Global rule 1"): identity-verified means the stored
 * proof's signer controls the identity at the pinned block, on every route that names the machine, in the heartbeat
 * and in GraphQL's identityVerified. A controller change on chain stops the machine everywhere with
 * MACHINE_NOT_ACTIVATED and ends the sessions issued under the old controller; a proof by the new controller
 * restores it. Over real sockets against the embedded chain.
 */
import { Wallet } from "ethers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { graphql } from "../../support/platform.js";
import { openMachineSession, registerFreshIdentity, seedBoundMachine, sessionOf, type FreshIdentity } from "../../support/machine-sessions.js";
import { transact } from "../../ratings/helpers.js";
import { api, expectMarketsError, expectOk, PLATFORM_START_TIMEOUT_MS, prismaOf, signedProof, startMarketsPlatform, type MarketsPlatform } from "../helpers.js";

let p: MarketsPlatform;
let machineId: string;
let identity: FreshIdentity;
let agentToken: string;
beforeAll(async () => {
  p = await startMarketsPlatform();
  ({ id: machineId, identity } = await seedBoundMachine(p));
  agentToken = expectOk(await api(p, "POST", `/machines/${machineId}/agents/enrollment`, { allowedProviderKeys: ["qvac"] }), 201).item.agentToken;
}, PLATFORM_START_TIMEOUT_MS);
afterAll(() => p?.close());

const heartbeat = () =>
  api(p, "POST", "/machine-agents/heartbeat", { leaseSeconds: 30, endpoint: { providerKey: "qvac", endpointBaseUrl: "http://127.0.0.1:11434" } }, { authorization: `Bearer ${agentToken}` });
/** GraphQL's identityVerified of the machine, in the list (which reads it without refusing). */
const identityVerified = async () =>
  (await graphql(p.graphql, `{ marketMachines(limit: 500) { items { id identityVerified } } }`)).body.data.marketMachines.items.find((m: any) => m.id === machineId)
    .identityVerified;

describe("a controller change on chain", () => {
  it("stops the machine on guarded routes, the heartbeat and GraphQL, and ends the old controller's sessions", async () => {
    const oldSession = sessionOf(machineId)!;
    expectOk(await api(p, "POST", `/machines/${machineId}/graph/nodes`, { label: "before" }), 201);
    expectOk(await heartbeat());
    expect(await identityVerified()).toBe(true);

    const newController = Wallet.createRandom();
    await transact(p, "MachineRegistry", (registry) => registry.setController!(identity.machineId, newController.address), identity.controllerPrivateKey);

    // The old controller's session: refused, and ended for good.
    expectMarketsError(await api(p, "POST", `/machines/${machineId}/graph/nodes`, { label: "x" }, { authorization: `Bearer ${oldSession}` }), 401, "MACHINE_IDENTITY_PROOF_INVALID");
    expect(await prismaOf(p).marketMachineSession.findFirstOrThrow({ where: { machineId, controllerAddress: identity.controllerAddress } })).toMatchObject({
      revokedReason: "controller-changed",
    });
    // The new controller acts for the machine, but its stored proof no longer holds: rule 1 stops every route.
    const fresh = { authorization: `Bearer ${await openMachineSession(p, machineId, identity.did, newController.privateKey)}` };
    const before = { nodes: await prismaOf(p).marketsGraphNode.count(), audit: await prismaOf(p).marketAuditEvent.count() };
    const lease = (await prismaOf(p).marketRuntimeEndpoint.findFirstOrThrow({ where: { machineId, providerKey: "qvac" } })).leaseExpiresAt;
    expectMarketsError(await api(p, "POST", `/machines/${machineId}/graph/nodes`, { label: "x" }, fresh), 409, "MACHINE_NOT_ACTIVATED");
    expectMarketsError(await api(p, "POST", `/machines/${machineId}/tasks`, { skillKey: "storage.object" }, fresh), 409, "MACHINE_NOT_ACTIVATED");
    expectMarketsError(await api(p, "GET", `/machines/${machineId}/graph`), 409, "MACHINE_NOT_ACTIVATED");
    expectMarketsError(await heartbeat(), 409, "MACHINE_NOT_ACTIVATED");
    expect((await prismaOf(p).marketRuntimeEndpoint.findFirstOrThrow({ where: { machineId, providerKey: "qvac" } })).leaseExpiresAt).toEqual(lease);
    expect({ nodes: await prismaOf(p).marketsGraphNode.count(), audit: await prismaOf(p).marketAuditEvent.count() }).toEqual({
      nodes: before.nodes,
      audit: before.audit,
    });
    expect(await identityVerified()).toBe(false);
    const read = await graphql(p.graphql, `query($id: String!) { marketMachine(id: $id) { identityVerified } }`, { id: machineId });
    expect(read.body.errors?.[0]?.extensions?.code).toBe("MACHINE_NOT_ACTIVATED");

    // A proof by the new controller restores it.
    const proof = await signedProof(p, identity.did, newController.privateKey);
    expectOk(await api(p, "PATCH", `/machines/${machineId}`, { identityProof: { challengeId: proof.challengeId, signature: proof.signature } }, fresh));
    expectOk(await api(p, "POST", `/machines/${machineId}/graph/nodes`, { label: "after" }, fresh), 201);
    expectOk(await heartbeat());
    expect(await identityVerified()).toBe(true);
  });

  it("a machine whose identity is deactivated stops the same way", async () => {
    const other: FreshIdentity = await registerFreshIdentity(p);
    const bound = await seedBoundMachine(p, { demo: { ...p.machine("active", 0), machineId: other.machineId, did: other.did, controllerAddress: other.controllerAddress, controllerPrivateKey: other.controllerPrivateKey } });
    expectOk(await api(p, "POST", `/machines/${bound.id}/graph/nodes`, { label: "live" }), 201);
    await transact(p, "MachineRegistry", (registry) => registry.deactivate!(other.machineId));
    expectMarketsError(await api(p, "GET", `/machines/${bound.id}/graph`), 409, "MACHINE_NOT_ACTIVATED");
  });
});
