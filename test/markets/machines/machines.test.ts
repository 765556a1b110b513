/**
 * Machine identity and machine records (document 3, "Machine identity and machines"; docs/markets-identity.md)
 * through the REST shim on the markets listener and GraphQL: challenges bound to the on-chain controllers, EIP-191
 * proofs (single use, expiring, signer must control the identity now), identityRef immutable, one record per
 * identity, re-verification on read, and every refusal leaving the rows as they were.
 */
import { Wallet } from "ethers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { graphql } from "../../support/platform.js";
import { stopChain } from "../../verify/helpers.js";
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
import { openMachineSession } from "../../support/machine-sessions.js";

let p: MarketsPlatform;
let offsetMs = 0;
const clock = { now: () => Date.now() + offsetMs };
beforeAll(async () => {
  p = await startMarketsPlatform({}, { clock });
}, PLATFORM_START_TIMEOUT_MS);
afterAll(() => p?.close());

const counts = async () => ({
  machines: await prismaOf(p).marketMachine.count(),
  audit: await prismaOf(p).marketAuditEvent.count(),
  consumed: await prismaOf(p).marketIdentityChallenge.count({ where: { consumedAt: { not: null } } }),
});

describe("POST /machine-identity/challenges", () => {
  it("201 with a message binding the service, identity, controllers, challenge, nonce and times", async () => {
    const machine = p.machine("active", 0);
    const before = clock.now();
    const item = expectOk(await api(p, "POST", "/machine-identity/challenges", { identityRef: machine.did }), 201).item;
    expect(Object.keys(item).sort()).toEqual(["challengeId", "controllerAddresses", "expiresAt", "identityRef", "message", "verificationMethod"]);
    expect(item).toMatchObject({ identityRef: machine.did, verificationMethod: "eip191", controllerAddresses: [machine.controllerAddress] });
    expect(item.challengeId).toMatch(/^mic_[0-9a-f]{24}$/);
    const lines = item.message.split("\n");
    expect(lines[0]).toBe("service machine markets asks a controller of this machine identity to bind it to a market machine record.");
    expect(lines.slice(2, 6)).toEqual([
      `Identity: ${machine.did}`,
      `Machine ID: ${machine.machineId}`,
      `Controllers: ${machine.controllerAddress}`,
      `Chain ID: ${p.demo.chainId}`,
    ]);
    expect(lines[6]).toBe(`Challenge ID: ${item.challengeId}`);
    expect(lines[7]).toMatch(/^Nonce: 0x[0-9a-f]{64}$/);
    expect(lines[9]).toBe(`Expiration Time: ${item.expiresAt}`);
    const ttl = Date.parse(item.expiresAt) - Date.parse(lines[8].slice("Issued At: ".length));
    expect(ttl).toBe(300_000);
    expect(Date.parse(item.expiresAt) - before).toBeGreaterThanOrEqual(299_000);
  });

  it("takes the `<namespace>:machine:<id>` form too", async () => {
    const item = expectOk(await api(p, "POST", "/machine-identity/challenges", { identityRef: "service:machine:2" }), 201).item;
    expect(item.identityRef).toBe("service:machine:2");
  });

  it.each([
    ["not an identity", { identityRef: "mach_1" }],
    ["another namespace", { identityRef: "did:other:1" }],
    ["a leading zero", { identityRef: "did:service:01" }],
    ["no identityRef", {}],
    ["a number", { identityRef: 1 }],
  ])("400 VALIDATION_ERROR for %s", async (_name, body) => {
    const before = await prismaOf(p).marketIdentityChallenge.count();
    expectMarketsError(await api(p, "POST", "/machine-identity/challenges", body), 400, "VALIDATION_ERROR");
    expect(await prismaOf(p).marketIdentityChallenge.count()).toBe(before);
  });

  it("404 NOT_FOUND for an unknown or deactivated machine; 503 SERVICE_IDENTITY_UNAVAILABLE for a second-chain one", async () => {
    expectMarketsError(await api(p, "POST", "/machine-identity/challenges", { identityRef: "did:service:999999" }), 404, "NOT_FOUND");
    expectMarketsError(await api(p, "POST", "/machine-identity/challenges", { identityRef: p.machine("deactivated").did }), 404, "NOT_FOUND");
    expectMarketsError(
      await api(p, "POST", "/machine-identity/challenges", { identityRef: p.machine("second-chain").did }),
      503,
      "SERVICE_IDENTITY_UNAVAILABLE",
    );
  });
});

describe("POST /machines with identity verification `required` (the default)", () => {
  it("401 MACHINE_IDENTITY_PROOF_REQUIRED without a proof; nothing stored", async () => {
    const before = await counts();
    expectMarketsError(await api(p, "POST", "/machines", { displayName: "x", identityRef: p.machine("active", 1).did }), 401, "MACHINE_IDENTITY_PROOF_REQUIRED");
    expect(await counts()).toEqual(before);
  });

  it("401 MACHINE_IDENTITY_PROOF_INVALID for a signer that is not a controller; the challenge stays usable", async () => {
    const machine = p.machine("active", 1);
    const { challengeId, challenge } = await signedProof(p, machine.did, machine.controllerPrivateKey);
    const stranger = await Wallet.createRandom().signMessage(challenge.message);
    const before = await counts();
    const body = { displayName: "m", identityRef: machine.did, identityProof: { challengeId, signature: stranger } };
    expectMarketsError(await api(p, "POST", "/machines", body), 401, "MACHINE_IDENTITY_PROOF_INVALID");
    expect(await counts()).toEqual(before);
    const good = await new Wallet(machine.controllerPrivateKey).signMessage(challenge.message);
    const created = expectOk(await api(p, "POST", "/machines", { ...body, identityProof: { challengeId, signature: good } }), 201).item;
    expect(created.identityProof.signerAddress).toBe(machine.controllerAddress);
  });

  it.each([
    ["a malformed signature", "0x1234"],
    ["v = 0", `0x${"11".repeat(64)}00`],
  ])("401 MACHINE_IDENTITY_PROOF_INVALID for %s", async (_name, signature) => {
    const machine = p.machine("active", 2);
    const { challengeId } = await signedProof(p, machine.did, machine.controllerPrivateKey);
    const before = await counts();
    expectMarketsError(await api(p, "POST", "/machines", { displayName: "m", identityRef: machine.did, identityProof: { challengeId, signature } }), 401, "MACHINE_IDENTITY_PROOF_INVALID");
    expect(await counts()).toEqual(before);
  });

  it("401 MACHINE_IDENTITY_PROOF_INVALID for a proof of another identity or an unknown challenge", async () => {
    const a = p.machine("active", 2);
    const b = p.machine("active", 3);
    const proofOfB = await signedProof(p, b.did, b.controllerPrivateKey);
    const before = await counts();
    const body = { displayName: "m", identityRef: a.did, identityProof: { challengeId: proofOfB.challengeId, signature: proofOfB.signature } };
    expectMarketsError(await api(p, "POST", "/machines", body), 401, "MACHINE_IDENTITY_PROOF_INVALID");
    const unknown = { ...body, identityProof: { challengeId: "mic_000000000000000000000000", signature: proofOfB.signature } };
    expectMarketsError(await api(p, "POST", "/machines", unknown), 401, "MACHINE_IDENTITY_PROOF_INVALID");
    expect(await counts()).toEqual(before);
  });

  it("401 MACHINE_IDENTITY_PROOF_EXPIRED after expiresAt (injected clock)", async () => {
    const machine = p.machine("active", 2);
    const { challengeId, signature } = await signedProof(p, machine.did, machine.controllerPrivateKey);
    const before = await counts();
    offsetMs = 300_000;
    try {
      expectMarketsError(await api(p, "POST", "/machines", { displayName: "m", identityRef: machine.did, identityProof: { challengeId, signature } }), 401, "MACHINE_IDENTITY_PROOF_EXPIRED");
    } finally {
      offsetMs = 0;
    }
    expect(await counts()).toEqual(before);
  });

  it("201 binds the machine: the documented record, the stored proof, active, one audit event", async () => {
    const machine = p.machine("active", 2);
    const item = await bindMachine(p, machine, { labels: { site: "lab" }, capabilities: ["camera"] });
    expect(Object.keys(item).sort()).toEqual(
      ["capabilities", "createdAt", "displayName", "id", "identityProof", "identityRef", "labels", "machineType", "ownerId", "policyIds", "runtimeProfile", "skillKeys", "status", "updatedAt"].sort(),
    );
    expect(item.id).toMatch(/^mach_[0-9a-f]{24}$/);
    expect(item.id).not.toBe(machine.machineId);
    expect(item).toMatchObject({ status: "active", identityRef: machine.did, ownerId: machine.controllerAddress, labels: { site: "lab" }, capabilities: ["camera"] });
    expect(item.identityProof).toMatchObject({
      method: "eip191",
      identityRef: machine.did,
      signerAddress: machine.controllerAddress,
      controllerAddresses: [machine.controllerAddress],
      resolutionSource: "service-mcr",
    });
    // bindMachine then opens the controller's session for the suite.
    const events = await prismaOf(p).marketAuditEvent.findMany({ where: { machineId: item.id }, orderBy: { id: "asc" } });
    expect(events.map((e) => e.kind)).toEqual(["machine.created", "machine.session-created"]);
    expect(expectOk(await api(p, "GET", `/machines/${item.id}`)).item).toEqual(item);
  });

  it("a proof is single use", async () => {
    const machine = p.machine("active", 3);
    const { challengeId, signature } = await signedProof(p, machine.did, machine.controllerPrivateKey);
    const created = expectOk(await api(p, "POST", "/machines", { displayName: "three", identityRef: machine.did, identityProof: { challengeId, signature } }), 201).item;
    const before = await counts();
    expectMarketsError(await api(p, "PATCH", `/machines/${created.id}`, { identityProof: { challengeId, signature } }), 401, "MACHINE_IDENTITY_PROOF_INVALID");
    expect(await counts()).toEqual(before);
  });

  it("a proof raced by parallel requests is used exactly once", async () => {
    const machine = p.machine("active", 3);
    const record = await prismaOf(p).marketMachine.findUniqueOrThrow({ where: { onChainMachineId: machine.machineId } });
    const { challengeId, signature } = await signedProof(p, machine.did, machine.controllerPrivateKey);
    const before = await prismaOf(p).marketAuditEvent.count({ where: { machineId: record.id } });
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) => api(p, "PATCH", `/machines/${record.id}`, { displayName: `race ${i}`, identityProof: { challengeId, signature } })),
    );
    expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
    for (const answer of answers.filter((a) => a.status !== 200)) expectMarketsError(answer, 401, "MACHINE_IDENTITY_PROOF_INVALID");
    expect(await prismaOf(p).marketAuditEvent.count({ where: { machineId: record.id } })).toBe(before + 1);
    const winner = answers.find((a) => a.status === 200)!.json().item;
    expect((await prismaOf(p).marketMachine.findUniqueOrThrow({ where: { id: record.id } })).displayName).toBe(winner.displayName);
  });

  it("409 MACHINE_IDENTITY_EXISTS for a second record of the same identity (either spelling)", async () => {
    const machine = p.machine("active", 3);
    const ref = `service:machine:${machine.machineId}`;
    const { challengeId, signature } = await signedProof(p, ref, machine.controllerPrivateKey);
    const before = await counts();
    expectMarketsError(await api(p, "POST", "/machines", { displayName: "again", identityRef: ref, identityProof: { challengeId, signature } }), 409, "MACHINE_IDENTITY_EXISTS");
    expect(await counts()).toEqual(before);
  });

  it.each([
    ["no displayName", { identityRef: "did:service:1" }],
    ["a non-string label value", { displayName: "x", labels: { a: 1 } }],
    ["an unknown status", { displayName: "x", status: "paused" }],
    ["not an object", []],
  ])("400 VALIDATION_ERROR for %s", async (_name, body) => {
    const before = await counts();
    expectMarketsError(await api(p, "POST", "/machines", body), 400, "VALIDATION_ERROR");
    expect(await counts()).toEqual(before);
  });
});

describe("GET /machines", () => {
  it("lists records with a stored proof in pages of `limit` with an opaque cursor", async () => {
    const all = expectOk(await api(p, "GET", "/machines")).items;
    expect(all.length).toBeGreaterThanOrEqual(3);
    expect(Object.keys(expectOk(await api(p, "GET", "/machines")))).toEqual(["items"]);
    const first = expectOk(await api(p, "GET", "/machines?limit=1"));
    expect(first.items).toEqual([all[0]]);
    const second = expectOk(await api(p, "GET", `/machines?limit=1&cursor=${first.nextCursor}`));
    expect(second.items).toEqual([all[1]]);
  });

  it.each(["limit=0", "limit=501", "limit=abc", "limit=1&limit=2", "cursor=%21%21", "cursor=bm90LWpzb24",
    // A cursor of the right shape whose instant does not parse (["not-a-date","mach_x"]): createdAtKeyset refuses it.
    "cursor=WyJub3QtYS1kYXRlIiwibWFjaF94Il0"])("400 VALIDATION_ERROR for %s", async (query) => {
    expectMarketsError(await api(p, "GET", `/machines?${query}`), 400, "VALIDATION_ERROR");
  });

  it("takes limit=500", async () => {
    expectOk(await api(p, "GET", "/machines?limit=500"));
  });

  it("identical pages asked for at once, through REST and GraphQL, answer as each page asked alone", async () => {
    // Identical pages arriving together share one statement and its rows (Database.read): no request's handling may
    // change what another one answers.
    const full = expectOk(await api(p, "GET", "/machines?limit=500"));
    // The records bound by the tests above: with none, there would be no row to share.
    expect(full.items.length).toBeGreaterThanOrEqual(3);
    const two = expectOk(await api(p, "GET", "/machines?limit=2"));
    const query = `{ marketMachines(limit: 500) { items { id status identityVerified labels identityProof { method signerAddress } } nextCursor } }`;
    const alone = (await graphql(p.graphql, query)).body;
    expect(alone.data.marketMachines.items).toHaveLength(full.items.length);
    // The table held under a lock while the requests arrive: the first page of each kind waits in the database and
    // the identical ones that arrive behind it share the next statement.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let locked!: () => void;
    const lockTaken = new Promise<void>((resolve) => (locked = resolve));
    const holder = prismaOf(p).$transaction(
      async (tx) => {
        await tx.$executeRawUnsafe("LOCK TABLE market_machine IN ACCESS EXCLUSIVE MODE");
        locked();
        await released;
      },
      { timeout: 20_000 },
    );
    await lockTaken;
    const answers = Promise.all([
      Promise.all(Array.from({ length: 24 }, (_, i) => api(p, "GET", i % 3 === 0 ? "/machines?limit=2" : "/machines?limit=500"))),
      Promise.all(Array.from({ length: 8 }, () => graphql(p.graphql, query))),
    ]);
    await new Promise((resolve) => setTimeout(resolve, 500));
    release();
    await holder;
    const [rest, overGraphql] = await answers;
    rest.forEach((answer, i) => expect(expectOk(answer)).toEqual(i % 3 === 0 ? two : full));
    for (const answer of overGraphql) expect(answer.body).toEqual(alone);
  });
});

describe("PATCH /machines/:machineId", () => {
  it("updates fields; identityRef is immutable (409), an unknown machine is 404", async () => {
    const machine = p.machine("active", 1);
    const record = (await prismaOf(p).marketMachine.findUniqueOrThrow({ where: { onChainMachineId: machine.machineId } }));
    const session = await openMachineSession(p, record.id, machine.did, machine.controllerPrivateKey);
    // Without the machine's authority nothing is looked at, not even whether the machine exists.
    const untouched = await prismaOf(p).marketMachine.findUniqueOrThrow({ where: { id: record.id } });
    expectMarketsError(await api(p, "PATCH", `/machines/${record.id}`, { status: "blocked" }, { authorization: "" }), 401, "MACHINE_IDENTITY_PROOF_REQUIRED");
    expectMarketsError(await api(p, "PATCH", "/machines/mach_000000000000000000000000", { displayName: "x" }), 401, "MACHINE_IDENTITY_PROOF_REQUIRED");
    expect(await prismaOf(p).marketMachine.findUniqueOrThrow({ where: { id: record.id } })).toEqual(untouched);
    const updated = expectOk(await api(p, "PATCH", `/machines/${record.id}`, { displayName: "renamed", labels: { a: "b" } })).item;
    expect(updated).toMatchObject({ displayName: "renamed", labels: { a: "b" }, identityRef: machine.did, status: "active" });
    const before = await prismaOf(p).marketMachine.findUniqueOrThrow({ where: { id: record.id } });
    expectMarketsError(await api(p, "PATCH", `/machines/${record.id}`, { identityRef: "did:service:1", displayName: "x" }), 409, "MACHINE_IDENTITY_IMMUTABLE");
    expect(await prismaOf(p).marketMachine.findUniqueOrThrow({ where: { id: record.id } })).toEqual(before);
    expectOk(await api(p, "PATCH", `/machines/${record.id}`, { identityRef: machine.did }));
    // A session is the authority of its own machine only.
    expectMarketsError(
      await api(p, "PATCH", "/machines/mach_000000000000000000000000", { displayName: "x" }, { authorization: `Bearer ${session}` }),
      401,
      "MACHINE_IDENTITY_PROOF_INVALID",
    );
    expectMarketsError(await api(p, "GET", "/machines/1"), 404, "NOT_FOUND");
  });
});

describe("a controller change on chain", () => {
  it("GET re-verifies (409 MACHINE_NOT_ACTIVATED), activation is refused, a proof by the new controller restores it", async () => {
    const machine = p.machine("active", 2);
    const record = await prismaOf(p).marketMachine.findUniqueOrThrow({ where: { onChainMachineId: machine.machineId } });
    const newController = Wallet.createRandom();
    await transact(p, "MachineRegistry", (registry) => registry.setController!(machine.machineId, newController.address), machine.ownerPrivateKey);
    expectMarketsError(await api(p, "GET", `/machines/${record.id}`), 409, "MACHINE_NOT_ACTIVATED");
    // The list does not re-check.
    expect(expectOk(await api(p, "GET", "/machines?limit=500")).items.map((m: any) => m.id)).toContain(record.id);
    // The old controller's session no longer acts for the machine; the new controller opens its own.
    const old = await openMachineSession(p, record.id, machine.did, machine.controllerPrivateKey).catch((error: Error) => error.message);
    expect(old).toContain("401");
    const fresh = { authorization: `Bearer ${await openMachineSession(p, record.id, machine.did, newController.privateKey)}` };
    // A patch re-verifies the stored proof: the flag drops, so activation is refused and rule 1 answers NOT_ACTIVATED.
    expectMarketsError(await api(p, "PATCH", `/machines/${record.id}`, { status: "active" }, fresh), 409, "MACHINE_NOT_ACTIVATED");
    expectOk(await api(p, "PATCH", `/machines/${record.id}`, { status: "blocked" }, fresh));
    expect((await prismaOf(p).marketMachine.findUniqueOrThrow({ where: { id: record.id } })).identityVerified).toBe(false);
    const proof = await signedProof(p, machine.did, newController.privateKey);
    expect(proof.challenge.controllerAddresses).toEqual([newController.address]);
    const restored = expectOk(await api(p, "PATCH", `/machines/${record.id}`, { status: "active", identityProof: { challengeId: proof.challengeId, signature: proof.signature } })).item;
    expect(restored).toMatchObject({ status: "active", identityProof: { signerAddress: newController.address } });
    expectOk(await api(p, "GET", `/machines/${record.id}`));
  });
});

describe("GraphQL", () => {
  it("serves the same operations and codes, and extends Machine with its market record", async () => {
    const machine = p.machine("active", 1);
    const { body } = await graphql(p.graphql, `{ machine(machineId: "${machine.machineId}") { marketMachine { id identityRef status identityVerified } } }`);
    expect(body.errors).toBeUndefined();
    expect(body.data.machine.marketMachine).toMatchObject({ identityRef: machine.did, status: "ACTIVE", identityVerified: true });
    const missing = await graphql(p.graphql, `mutation { createMarketMachine(input: { displayName: "x", identityRef: "${machine.did}" }) { id } }`);
    expect(missing.body.errors?.[0]?.extensions?.code).toBe("MACHINE_IDENTITY_EXISTS");
    const page = await graphql(p.graphql, `{ marketMachines(limit: 1) { items { id } nextCursor } }`);
    expect(page.body.data.marketMachines.items).toHaveLength(1);
  });
});

describe("identity challenge cleanup (the job, run on demand)", () => {
  it("deletes challenges expired longer than the grace, used or not, and keeps the rest", async () => {
    const machine = p.machine("active", 0);
    const fresh = await signedProof(p, machine.did, machine.controllerPrivateKey);
    const { identityChallenges } = marketsServices(p);
    offsetMs = 301_000 + 3600_000;
    let deleted;
    try {
      deleted = await identityChallenges.cleanup(3600);
    } finally {
      offsetMs = 0;
    }
    expect(deleted).toBeGreaterThan(0);
    expect(await prismaOf(p).marketIdentityChallenge.count({ where: { id: fresh.challengeId } })).toBe(0);
    const kept = await signedProof(p, machine.did, machine.controllerPrivateKey);
    expect(await identityChallenges.cleanup(3600)).toBe(0);
    expect(await prismaOf(p).marketIdentityChallenge.count({ where: { id: kept.challengeId } })).toBe(1);
  });
});

describe("the chain cannot be read", () => {
  it("503 SERVICE_IDENTITY_UNAVAILABLE on challenges, writes and re-verifying reads", async () => {
    const q = await startMarketsPlatform();
    try {
      const machine = q.machine("active", 0);
      const bound = await bindMachine(q, machine);
      const other = q.machine("active", 1);
      const proof = await signedProof(q, other.did, other.controllerPrivateKey);
      await stopChain(q);
      expectMarketsError(await api(q, "POST", "/machine-identity/challenges", { identityRef: other.did }), 503, "SERVICE_IDENTITY_UNAVAILABLE");
      // The address form cannot even be mapped to its machine.
      expectMarketsError(await api(q, "POST", "/machine-identity/challenges", { identityRef: other.legacyDid }), 503, "SERVICE_IDENTITY_UNAVAILABLE");
      expectMarketsError(await api(q, "POST", "/machines", { displayName: "x", identityRef: other.legacyDid }), 503, "SERVICE_IDENTITY_UNAVAILABLE");
      expectMarketsError(
        await api(q, "POST", "/machines", { displayName: "x", identityRef: other.did, identityProof: { challengeId: proof.challengeId, signature: proof.signature } }),
        503,
        "SERVICE_IDENTITY_UNAVAILABLE",
      );
      expect(await prismaOf(q).marketMachine.count()).toBe(1);
      expectMarketsError(await api(q, "PATCH", `/machines/${bound.id}`, { displayName: "x" }), 503, "SERVICE_IDENTITY_UNAVAILABLE");
      expectMarketsError(await api(q, "GET", `/machines/${bound.id}`), 503, "SERVICE_IDENTITY_UNAVAILABLE");
    } finally {
      await q.close();
    }
  }, PLATFORM_START_TIMEOUT_MS);
});
