/**
 * Machine sessions (docs/markets-identity.md "Machine sessions") over real sockets, REST and GraphQL, on the embedded
 * chain: a controller-signed identity challenge opens a session bound to the machine and that controller; the
 * bearer token ends with DELETE, and a session whose controller no longer controls the identity on chain is ended
 * for good. Every refusal leaves the sessions, challenges and audit log as they were.
 */
import { Wallet } from "ethers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { graphql } from "../../support/platform.js";
import { transact } from "../../ratings/helpers.js";
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
  type MarketsPlatform,
} from "../helpers.js";

let p: MarketsPlatform;
let offsetMs = 0;
const clock = { now: () => Date.now() + offsetMs };
let record: { id: string };
let other: { id: string };
beforeAll(async () => {
  p = await startMarketsPlatform({ MACHINE_SESSION_TTL_SECONDS: "600" }, { clock });
  record = await bindMachine(p, p.machine("active", 0));
  other = await bindMachine(p, p.machine("active", 1));
}, PLATFORM_START_TIMEOUT_MS);
afterAll(() => p?.close());

const state = async () => ({
  sessions: await prismaOf(p).marketMachineSession.findMany({ orderBy: { id: "asc" } }),
  consumed: await prismaOf(p).marketIdentityChallenge.count({ where: { consumedAt: { not: null } } }),
  audit: await prismaOf(p).marketAuditEvent.count(),
});

/** A session for `machineIndex`'s record, proven by `key` (its controller by default). */
async function openSession(machineId: string, machineIndex: number, key?: string) {
  const machine = p.machine("active", machineIndex);
  const proof = await signedProof(p, machine.did, key ?? machine.controllerPrivateKey);
  return api(p, "POST", "/machine-identity/sessions", { machineId, identityProof: { challengeId: proof.challengeId, signature: proof.signature } });
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

describe("POST /machine-identity/sessions", () => {
  it("201: a session bound to the machine and the signing controller, with its audit event; the challenge is used", async () => {
    const before = await state();
    const item = expectOk(await openSession(record.id, 0), 201).item;
    const machine = p.machine("active", 0);
    expect(Object.keys(item).sort()).toEqual(["controllerAddress", "expiresAt", "issuedAt", "machineId", "sessionId", "sessionToken"]);
    expect(item).toMatchObject({ machineId: record.id, controllerAddress: machine.controllerAddress });
    expect(item.sessionId).toMatch(/^msess_[0-9a-f]{24}$/);
    expect(item.sessionToken.split(".")).toHaveLength(3);
    expect(Date.parse(item.expiresAt) - Date.parse(item.issuedAt)).toBe(600_000);
    const after = await state();
    expect(after.sessions).toHaveLength(before.sessions.length + 1);
    expect(after.consumed).toBe(before.consumed + 1);
    const event = await prismaOf(p).marketAuditEvent.findFirstOrThrow({ where: { kind: "machine.session-created" }, orderBy: { id: "desc" } });
    expect(event).toMatchObject({ machineId: record.id, actorType: "machine", actorId: machine.controllerAddress });
    expect(JSON.stringify(event.data)).not.toContain(item.sessionToken);
  });

  it("refuses, leaving everything as it was: a stranger's signature, a used or foreign challenge, an unknown machine, a bad body", async () => {
    const stranger = Wallet.createRandom();
    let before = await state();
    expectMarketsError(await openSession(record.id, 0, stranger.privateKey), 401, "MACHINE_IDENTITY_PROOF_INVALID");
    // A challenge of machine 1's identity cannot open a session on machine 0's record.
    const foreign = await signedProof(p, p.machine("active", 1).did, p.machine("active", 1).controllerPrivateKey);
    expectMarketsError(
      await api(p, "POST", "/machine-identity/sessions", { machineId: record.id, identityProof: { challengeId: foreign.challengeId, signature: foreign.signature } }),
      401,
      "MACHINE_IDENTITY_PROOF_INVALID",
    );
    expectMarketsError(
      await api(p, "POST", "/machine-identity/sessions", { machineId: "mach_000000000000000000000000", identityProof: { challengeId: foreign.challengeId, signature: foreign.signature } }),
      404,
      "NOT_FOUND",
    );
    expectMarketsError(await api(p, "POST", "/machine-identity/sessions", { machineId: record.id }), 400, "VALIDATION_ERROR");
    expectMarketsError(await api(p, "POST", "/machine-identity/sessions", { machineId: record.id, identityProof: "0x00" }), 400, "VALIDATION_ERROR");
    expect(await state()).toEqual(before);
    // A used challenge: the first use opens a session, the second is refused.
    const machine = p.machine("active", 0);
    const proof = await signedProof(p, machine.did, machine.controllerPrivateKey);
    const body = { machineId: record.id, identityProof: { challengeId: proof.challengeId, signature: proof.signature } };
    expectOk(await api(p, "POST", "/machine-identity/sessions", body), 201);
    before = await state();
    expectMarketsError(await api(p, "POST", "/machine-identity/sessions", body), 401, "MACHINE_IDENTITY_PROOF_INVALID");
    expect(await state()).toEqual(before);
  });

  it("401 MACHINE_IDENTITY_PROOF_EXPIRED for a challenge past its expiresAt", async () => {
    const machine = p.machine("active", 0);
    const proof = await signedProof(p, machine.did, machine.controllerPrivateKey);
    const before = await state();
    offsetMs = 301_000;
    try {
      expectMarketsError(
        await api(p, "POST", "/machine-identity/sessions", { machineId: record.id, identityProof: { challengeId: proof.challengeId, signature: proof.signature } }),
        401,
        "MACHINE_IDENTITY_PROOF_EXPIRED",
      );
    } finally {
      offsetMs = 0;
    }
    expect(await state()).toEqual(before);
  });
});

describe("DELETE /machine-identity/sessions/:sessionId", () => {
  it("204 ends a session of the caller's machine; the ended token is refused from then on", async () => {
    const first = expectOk(await openSession(record.id, 0), 201).item;
    const second = expectOk(await openSession(record.id, 0), 201).item;
    const response = await api(p, "DELETE", `/machine-identity/sessions/${first.sessionId}`, undefined, bearer(second.sessionToken));
    expect(response.status).toBe(204);
    expect(response.text).toBe("");
    const row = await prismaOf(p).marketMachineSession.findUniqueOrThrow({ where: { id: first.sessionId } });
    expect(row).toMatchObject({ revokedReason: "revoked" });
    expect(row.revokedAt).not.toBeNull();
    expectMarketsError(
      await api(p, "DELETE", `/machine-identity/sessions/${second.sessionId}`, undefined, bearer(first.sessionToken)),
      401,
      "MACHINE_IDENTITY_PROOF_INVALID",
    );
    // A session may end itself.
    expect((await api(p, "DELETE", `/machine-identity/sessions/${second.sessionId}`, undefined, bearer(second.sessionToken))).status).toBe(204);
  });

  it("refuses a missing, malformed, forged, expired or foreign credential, and another machine's session", async () => {
    const mine = expectOk(await openSession(record.id, 0), 201).item;
    const theirs = expectOk(await openSession(other.id, 1), 201).item;
    const before = await state();
    const path = `/machine-identity/sessions/${theirs.sessionId}`;
    expectMarketsError(await api(p, "DELETE", path), 401, "MACHINE_IDENTITY_PROOF_REQUIRED");
    expectMarketsError(await api(p, "DELETE", path, undefined, { authorization: "Basic abc" }), 401, "MACHINE_IDENTITY_PROOF_INVALID");
    const [header, payload] = mine.sessionToken.split(".");
    expectMarketsError(await api(p, "DELETE", path, undefined, bearer(`${header}.${payload}.${"A".repeat(43)}`)), 401, "MACHINE_IDENTITY_PROOF_INVALID");
    // Machine 0's session cannot end machine 1's: to it, that session does not exist.
    expectMarketsError(await api(p, "DELETE", path, undefined, bearer(mine.sessionToken)), 404, "NOT_FOUND");
    offsetMs = 601_000;
    try {
      expectMarketsError(await api(p, "DELETE", path, undefined, bearer(theirs.sessionToken)), 401, "MACHINE_IDENTITY_PROOF_EXPIRED");
    } finally {
      offsetMs = 0;
    }
    expect(await state()).toEqual(before);
  });
});

describe("a controller change on chain", () => {
  it("ends the sessions issued under the old controller for good; the new controller opens its own", async () => {
    const machine = p.machine("active", 2);
    const bound = await bindMachine(p, machine);
    const old = expectOk(await openSession(bound.id, 2), 201).item;
    const spare = expectOk(await openSession(bound.id, 2), 201).item;
    const newController = Wallet.createRandom();
    await transact(p, "MachineRegistry", (registry) => registry.setController!(machine.machineId, newController.address), machine.ownerPrivateKey);
    const fresh = expectOk(await openSession(bound.id, 2, newController.privateKey), 201).item;
    expect(fresh.controllerAddress).toBe(newController.address);
    expectMarketsError(
      await api(p, "DELETE", `/machine-identity/sessions/${spare.sessionId}`, undefined, bearer(old.sessionToken)),
      401,
      "MACHINE_IDENTITY_PROOF_INVALID",
    );
    expect(await prismaOf(p).marketMachineSession.findUniqueOrThrow({ where: { id: old.sessionId } })).toMatchObject({ revokedReason: "controller-changed" });
    // Control handed back does not revive an ended session.
    await transact(p, "MachineRegistry", (registry) => registry.setController!(machine.machineId, machine.controllerAddress), machine.ownerPrivateKey);
    expectMarketsError(
      await api(p, "DELETE", `/machine-identity/sessions/${spare.sessionId}`, undefined, bearer(old.sessionToken)),
      401,
      "MACHINE_IDENTITY_PROOF_INVALID",
    );
  });
});

describe("GraphQL", () => {
  it("createMachineSession and revokeMachineSession with the same rules and codes", async () => {
    const machine = p.machine("active", 1);
    const proof = await signedProof(p, machine.did, machine.controllerPrivateKey);
    const created = await graphql(
      p.graphql,
      `mutation($input: CreateMachineSessionInput!) { createMachineSession(input: $input) { sessionId machineId controllerAddress sessionToken } }`,
      { input: { machineId: other.id, identityProof: { challengeId: proof.challengeId, signature: proof.signature } } },
    );
    expect(created.body.errors).toBeUndefined();
    const session = created.body.data.createMachineSession;
    expect(session).toMatchObject({ machineId: other.id, controllerAddress: machine.controllerAddress });
    const revoke = `mutation($t: String, $id: String!) { revokeMachineSession(machineSession: $t, sessionId: $id) }`;
    const anonymous = await graphql(p.graphql, revoke, { id: session.sessionId });
    expect(anonymous.body.errors?.[0]?.extensions?.code).toBe("MACHINE_IDENTITY_PROOF_REQUIRED");
    const done = await graphql(p.graphql, revoke, { t: session.sessionToken, id: session.sessionId });
    expect(done.body).toEqual({ data: { revokeMachineSession: true } });
  });
});

describe("machine session cleanup (the job, run on demand)", () => {
  it("deletes sessions that expired longer than the grace ago, ended or not, and keeps the rest", async () => {
    const kept = expectOk(await openSession(record.id, 0), 201).item;
    const { machineSessions } = marketsServices(p);
    const before = await prismaOf(p).marketMachineSession.count();
    offsetMs = 600_000 + 3_600_000 + 1_000;
    let deleted: number;
    try {
      deleted = await machineSessions.cleanup(3600);
    } finally {
      offsetMs = 0;
    }
    expect(deleted).toBeGreaterThan(0);
    expect(await prismaOf(p).marketMachineSession.count()).toBe(before - deleted);
    expect(await prismaOf(p).marketMachineSession.findUnique({ where: { id: kept.sessionId } })).toBeNull();
    const fresh = expectOk(await openSession(record.id, 0), 201).item;
    expect(await machineSessions.cleanup(3600)).toBe(0);
    expect(await prismaOf(p).marketMachineSession.findUnique({ where: { id: fresh.sessionId } })).not.toBeNull();
  });
});
