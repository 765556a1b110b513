/**
 * The address form of identityRef, `did:service:0x<address>` (docs/markets-identity.md, "identityRef"), through the
 * REST shim on the markets listener and GraphQL against the demo chain: it names the machine the identity registry
 * maps the address to, in any letter case; every spelling of one machine is one identity (MACHINE_IDENTITY_EXISTS,
 * also for two creates racing with different spellings); answers echo the caller's spelling; malformed addresses are
 * VALIDATION_ERROR and addresses that name no machine NOT_FOUND, each refusal leaving the rows as they were.
 */
import { Wallet, ZeroHash } from "ethers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { graphql } from "../../support/platform.js";
import { transact } from "../../ratings/helpers.js";
import { api, expectMarketsError, expectOk, PLATFORM_START_TIMEOUT_MS, prismaOf, signedProof, startMarketsPlatform, type MarketsPlatform } from "../helpers.js";
import { openMachineSession } from "../../support/machine-sessions.js";

let p: MarketsPlatform;
beforeAll(async () => {
  p = await startMarketsPlatform();
}, PLATFORM_START_TIMEOUT_MS);
afterAll(() => p?.close());

const counts = async (q: MarketsPlatform = p) => ({
  machines: await prismaOf(q).marketMachine.count(),
  challenges: await prismaOf(q).marketIdentityChallenge.count(),
  audit: await prismaOf(q).marketAuditEvent.count(),
  consumed: await prismaOf(q).marketIdentityChallenge.count({ where: { consumedAt: { not: null } } }),
});

interface FreshMachine {
  machineId: string;
  /** EIP-55. */
  address: string;
  /** NFT owner, and so the effective controller. */
  owner: { address: string; privateKey: string };
}

let nextMachineId = 700_001;
/** A machine of its own for a test: in the machine registry (owner = controller) and, by address, the identity registry. */
async function registerMachine(q: MarketsPlatform = p, identityAddress?: string): Promise<FreshMachine> {
  const machineId = nextMachineId++;
  const machine = Wallet.createRandom();
  const owner = Wallet.createRandom();
  const operator = Wallet.createRandom().address;
  await transact(q, "MachineRegistry", (registry) =>
    registry.registerMachine!(machineId, machine.address, operator, owner.address, 0, q.demo.chainId, ZeroHash),
  );
  await transact(q, "IdentityRegistry", (identity) => identity.registerUnbondedAt!(machineId, identityAddress ?? machine.address, operator));
  return { machineId: String(machineId), address: machine.address, owner };
}

const addressRef = (address: string) => `did:service:${address}`;
const lower = (address: string) => addressRef(address.toLowerCase());
const upper = (address: string) => addressRef(`0x${address.slice(2).toUpperCase()}`);

/** POST /machines with a proof for `proofRef` (default: `identityRef`) signed by `key`. */
async function createWith(q: MarketsPlatform, identityRef: string, key: string, proofRef = identityRef, displayName = "m") {
  const { challengeId, signature } = await signedProof(q, proofRef, key);
  return api(q, "POST", "/machines", { displayName, identityRef, identityProof: { challengeId, signature } });
}

const CHALLENGE = `mutation($ref: String!) { createMachineIdentityChallenge(identityRef: $ref) { challengeId identityRef message controllerAddresses } }`;
const CREATE = `mutation($input: CreateMarketMachineInput!) {
  createMarketMachine(input: $input) { id identityRef onChainMachineId identityVerified status identityProof { identityRef signerAddress } }
}`;

/** A proof obtained and sent over GraphQL: the createMarketMachine answer. */
async function graphqlCreate(q: MarketsPlatform, identityRef: string, key: string) {
  const challenge = await graphql(q.graphql, CHALLENGE, { ref: identityRef });
  expect(challenge.body.errors).toBeUndefined();
  const { challengeId, message } = challenge.body.data.createMachineIdentityChallenge;
  const signature = await new Wallet(key).signMessage(message);
  return graphql(q.graphql, CREATE, { input: { displayName: "g", identityRef, identityProof: { challengeId, signature } } });
}

describe("POST /machine-identity/challenges with the address form", () => {
  it("201 for the checksummed, lower-case and upper-case spellings: each echoed, all naming the same machine", async () => {
    const machine = p.machine("active", 0);
    for (const ref of [machine.legacyDid, lower(machine.machineAddress), upper(machine.machineAddress)]) {
      const item = expectOk(await api(p, "POST", "/machine-identity/challenges", { identityRef: ref }), 201).item;
      expect(item).toMatchObject({ identityRef: ref, controllerAddresses: [machine.controllerAddress] });
      expect(item.message.split("\n").slice(2, 5)).toEqual([`Identity: ${ref}`, `Machine ID: ${machine.machineId}`, `Controllers: ${machine.controllerAddress}`]);
      const row = await prismaOf(p).marketIdentityChallenge.findUniqueOrThrow({ where: { id: item.challengeId } });
      expect({ identityRef: row.identityRef, onChainMachineId: row.onChainMachineId }).toEqual({ identityRef: ref, onChainMachineId: machine.machineId });
    }
  });

  it("GraphQL: the same challenge, echoing the spelling", async () => {
    const machine = p.machine("active", 1);
    const ref = lower(machine.machineAddress);
    const { body } = await graphql(p.graphql, CHALLENGE, { ref });
    expect(body.errors).toBeUndefined();
    expect(body.data.createMachineIdentityChallenge).toMatchObject({ identityRef: ref, controllerAddresses: [machine.controllerAddress] });
    expect(body.data.createMachineIdentityChallenge.message).toContain(`\nIdentity: ${ref}\nMachine ID: ${machine.machineId}\n`);
  });
});

describe("POST /machines with the address form", () => {
  it("binds the machine end to end: 201, the caller's spelling echoed on REST and GraphQL, the machine ID stored", async () => {
    const machine = await registerMachine();
    const ref = lower(machine.address);
    const before = await counts();
    const item = expectOk(await createWith(p, ref, machine.owner.privateKey), 201).item;
    expect(item).toMatchObject({ identityRef: ref, status: "active", ownerId: machine.owner.address });
    expect(item.identityProof).toMatchObject({ identityRef: ref, signerAddress: machine.owner.address, controllerAddresses: [machine.owner.address] });
    expect(await counts()).toEqual({ ...before, machines: before.machines + 1, challenges: before.challenges + 1, audit: before.audit + 1, consumed: before.consumed + 1 });
    const row = await prismaOf(p).marketMachine.findUniqueOrThrow({ where: { id: item.id } });
    expect({ identityRef: row.identityRef, onChainMachineId: row.onChainMachineId, identityVerified: row.identityVerified }).toEqual({
      identityRef: ref,
      onChainMachineId: machine.machineId,
      identityVerified: true,
    });
    expect(expectOk(await api(p, "GET", `/machines/${item.id}`)).item).toEqual(item);
    const { body } = await graphql(p.graphql, `{ machine(machineId: "${machine.machineId}") { marketMachine { id identityRef onChainMachineId identityVerified } } }`);
    expect(body.errors).toBeUndefined();
    expect(body.data.machine.marketMachine).toEqual({ id: item.id, identityRef: ref, onChainMachineId: machine.machineId, identityVerified: true });
  });

  it("GraphQL createMarketMachine binds the checksummed spelling and echoes it", async () => {
    const machine = await registerMachine();
    const ref = addressRef(machine.address);
    const { body } = await graphqlCreate(p, ref, machine.owner.privateKey);
    expect(body.errors).toBeUndefined();
    expect(body.data.createMarketMachine).toMatchObject({
      identityRef: ref,
      onChainMachineId: machine.machineId,
      identityVerified: true,
      status: "ACTIVE",
      identityProof: { identityRef: ref, signerAddress: machine.owner.address },
    });
  });

  it("a challenge for another spelling of the same machine proves it; the stored proof names the signed spelling", async () => {
    const machine = await registerMachine();
    const ref = upper(machine.address);
    const item = expectOk(await createWith(p, ref, machine.owner.privateKey, `did:service:${machine.machineId}`), 201).item;
    expect(item.identityRef).toBe(ref);
    expect(item.identityProof).toMatchObject({ identityRef: `did:service:${machine.machineId}`, signerAddress: machine.owner.address });
  });

  it("401 MACHINE_IDENTITY_PROOF_INVALID for a challenge of another machine; nothing stored, the challenge unused", async () => {
    const [a, b] = [await registerMachine(), await registerMachine()];
    const proofOfB = await signedProof(p, addressRef(b.address), b.owner.privateKey);
    const before = await counts();
    const body = { displayName: "m", identityRef: addressRef(a.address), identityProof: { challengeId: proofOfB.challengeId, signature: proofOfB.signature } };
    expectMarketsError(await api(p, "POST", "/machines", body), 401, "MACHINE_IDENTITY_PROOF_INVALID");
    expect(await counts()).toEqual(before);
  });
});

describe("every spelling of one machine is one identity", () => {
  it("409 MACHINE_IDENTITY_EXISTS for each other spelling once the address form is bound (REST, GraphQL); nothing stored", async () => {
    const machine = await registerMachine();
    expectOk(await createWith(p, addressRef(machine.address), machine.owner.privateKey), 201);
    for (const ref of [`did:service:${machine.machineId}`, `service:machine:${machine.machineId}`, lower(machine.address), upper(machine.address)]) {
      const { challengeId, signature } = await signedProof(p, ref, machine.owner.privateKey);
      const before = await counts();
      expectMarketsError(await api(p, "POST", "/machines", { displayName: "again", identityRef: ref, identityProof: { challengeId, signature } }), 409, "MACHINE_IDENTITY_EXISTS");
      expect(await counts()).toEqual(before);
    }
    const before = await counts();
    const { body } = await graphqlCreate(p, `did:service:${machine.machineId}`, machine.owner.privateKey);
    expect(body.errors?.[0]?.extensions?.code).toBe("MACHINE_IDENTITY_EXISTS");
    expect(await counts()).toEqual({ ...before, challenges: before.challenges + 1 });
  });

  it("409 MACHINE_IDENTITY_EXISTS for the address form once the decimal form is bound; nothing stored", async () => {
    const machine = p.machine("active", 3);
    expectOk(await createWith(p, machine.did, machine.controllerPrivateKey), 201);
    const { challengeId, signature } = await signedProof(p, machine.legacyDid, machine.controllerPrivateKey);
    const before = await counts();
    const body = { displayName: "again", identityRef: machine.legacyDid, identityProof: { challengeId, signature } };
    expectMarketsError(await api(p, "POST", "/machines", body), 409, "MACHINE_IDENTITY_EXISTS");
    expect(await counts()).toEqual(before);
  });

  it("creates racing with different spellings (REST and GraphQL): one record, every other 409, one challenge consumed", async () => {
    for (let round = 0; round < 2; round++) {
      const machine = await registerMachine();
      const spellings = [`did:service:${machine.machineId}`, lower(machine.address), `service:machine:${machine.machineId}`, addressRef(machine.address), upper(machine.address)];
      const proofs = await Promise.all(spellings.map((ref) => signedProof(p, ref, machine.owner.privateKey)));
      const before = await counts();
      // Even spellings over REST, odd ones over GraphQL, all at once: a create is "won" when it answers the record.
      const won = await Promise.all(
        spellings.map(async (identityRef, i) => {
          const identityProof = { challengeId: proofs[i]!.challengeId, signature: proofs[i]!.signature };
          if (i % 2 === 0) {
            const answer = await api(p, "POST", "/machines", { displayName: `rest ${i}`, identityRef, identityProof });
            if (answer.status === 201) return true;
            expectMarketsError(answer, 409, "MACHINE_IDENTITY_EXISTS");
            return false;
          }
          const { body } = await graphql(p.graphql, CREATE, { input: { displayName: `gql ${i}`, identityRef, identityProof } });
          if (body.errors === undefined) return true;
          expect(body.errors[0]?.extensions?.code).toBe("MACHINE_IDENTITY_EXISTS");
          return false;
        }),
      );
      expect(won.filter(Boolean)).toHaveLength(1);
      const winner = won.indexOf(true);
      const rows = await prismaOf(p).marketMachine.findMany({ where: { onChainMachineId: machine.machineId } });
      expect(rows.map((r) => r.identityRef)).toEqual([spellings[winner]]);
      expect(await counts()).toEqual({ ...before, machines: before.machines + 1, audit: before.audit + 1, consumed: before.consumed + 1 });
      const used = await prismaOf(p).marketIdentityChallenge.findMany({ where: { id: { in: proofs.map((x) => x.challengeId) }, consumedAt: { not: null } } });
      expect(used.map((c) => c.id)).toEqual([proofs[winner]!.challengeId]);
    }
  });
});

describe("PATCH /machines/:machineId and the address form", () => {
  it("another spelling of the bound machine is no change (200, the record keeps its spelling); another machine's is 409", async () => {
    const machine = await registerMachine();
    const other = await registerMachine();
    const item = expectOk(await createWith(p, lower(machine.address), machine.owner.privateKey), 201).item;
    const session = await openMachineSession(p, item.id, lower(machine.address), machine.owner.privateKey);
    for (const ref of [addressRef(machine.address), `did:service:${machine.machineId}`, `service:machine:${machine.machineId}`]) {
      const patched = expectOk(await api(p, "PATCH", `/machines/${item.id}`, { identityRef: ref, displayName: `as ${ref}` })).item;
      expect(patched).toMatchObject({ identityRef: lower(machine.address), displayName: `as ${ref}` });
    }
    const before = await prismaOf(p).marketMachine.findUniqueOrThrow({ where: { id: item.id } });
    const audit = await counts();
    for (const ref of [addressRef(other.address), `did:service:${other.machineId}`, addressRef(Wallet.createRandom().address)]) {
      expectMarketsError(await api(p, "PATCH", `/machines/${item.id}`, { identityRef: ref, displayName: "x" }), 409, "MACHINE_IDENTITY_IMMUTABLE");
    }
    expectMarketsError(await api(p, "PATCH", `/machines/${item.id}`, { identityRef: `${lower(machine.address)}0`, displayName: "x" }), 400, "VALIDATION_ERROR");
    expect(await prismaOf(p).marketMachine.findUniqueOrThrow({ where: { id: item.id } })).toEqual(before);
    expect(await counts()).toEqual(audit);
    const { body } = await graphql(p.graphql, `mutation($id: String!, $ref: String!, $s: String) { updateMarketMachine(id: $id, input: { identityRef: $ref }, machineSession: $s) { identityRef } }`, {
      id: item.id,
      s: session,
      ref: `did:service:${machine.machineId}`,
    });
    expect(body.errors).toBeUndefined();
    expect(body.data.updateMarketMachine.identityRef).toBe(lower(machine.address));
  });
});

const MALFORMED = (address: string) => [
  ["39 hex digits", `did:service:${address.slice(0, 41)}`],
  ["41 hex digits", `did:service:${address}0`],
  ["a non-hex digit", `did:service:0x${"g".repeat(40)}`],
  ["no 0x", `did:service:${address.slice(2)}`],
  ["0X", `did:service:0X${address.slice(2)}`],
  ["the <namespace>:machine: prefix", `service:machine:${address}`],
  ["another namespace", `did:other:${address}`],
  ["a trailing space", `did:service:${address} `],
];

describe("malformed addresses", () => {
  it("400 VALIDATION_ERROR on the challenge and on create, REST and GraphQL; nothing stored", async () => {
    const machine = p.machine("active", 0);
    const before = await counts();
    for (const [name, ref] of MALFORMED(machine.machineAddress)) {
      expectMarketsError(await api(p, "POST", "/machine-identity/challenges", { identityRef: ref }), 400, "VALIDATION_ERROR");
      const body = { displayName: "m", identityRef: ref, identityProof: { challengeId: "mic_000000000000000000000000", signature: `0x${"11".repeat(65)}` } };
      expectMarketsError(await api(p, "POST", "/machines", body), 400, "VALIDATION_ERROR");
      const { body: gql } = await graphql(p.graphql, CHALLENGE, { ref });
      expect(gql.errors?.[0]?.extensions?.code, name).toBe("VALIDATION_ERROR");
    }
    expect(await counts()).toEqual(before);
  });
});

describe("an address that names no machine", () => {
  it("404 NOT_FOUND on the challenge and on create, REST and GraphQL; nothing stored", async () => {
    // The identity registry maps this address to a machine whose machine-registry address is another one.
    const disagreeing = Wallet.createRandom().address;
    await registerMachine(p, disagreeing);
    const unknown = [
      Wallet.createRandom().address,
      disagreeing,
      // Registered in the machine registry only: the identity registry has no entry for its address.
      p.demo.ratings.v2Machine.machineAddress,
    ];
    const before = await counts();
    for (const address of unknown) {
      for (const ref of [addressRef(address), lower(address)]) {
        expectMarketsError(await api(p, "POST", "/machine-identity/challenges", { identityRef: ref }), 404, "NOT_FOUND");
        const body = { displayName: "m", identityRef: ref, identityProof: { challengeId: "mic_000000000000000000000000", signature: `0x${"11".repeat(65)}` } };
        expectMarketsError(await api(p, "POST", "/machines", body), 404, "NOT_FOUND");
        const { body: gql } = await graphql(p.graphql, CHALLENGE, { ref });
        expect(gql.errors?.[0]?.extensions?.code).toBe("NOT_FOUND");
      }
    }
    expect(await counts()).toEqual(before);
  });
});

describe("with identity verification off", () => {
  it("an unknown address is 404 NOT_FOUND; PATCH binds the address form to a draft; a taken machine is 409", async () => {
    const q = await startMarketsPlatform({ MACHINE_IDENTITY_VERIFICATION: "off" });
    try {
      const unknownRef = addressRef(Wallet.createRandom().address);
      const before = await counts(q);
      expectMarketsError(await api(q, "POST", "/machines", { displayName: "m", identityRef: unknownRef }), 404, "NOT_FOUND");
      expect(await counts(q)).toEqual(before);

      const machine = q.machine("active", 0);
      const bound = expectOk(await api(q, "POST", "/machines", { displayName: "by address", identityRef: upper(machine.machineAddress) }), 201).item;
      expect(bound).toMatchObject({ identityRef: upper(machine.machineAddress), status: "active" });
      expect((await prismaOf(q).marketMachine.findUniqueOrThrow({ where: { id: bound.id } })).onChainMachineId).toBe(machine.machineId);

      const draft = expectOk(await api(q, "POST", "/machines", { displayName: "draft" }), 201).item;
      const draftRow = await prismaOf(q).marketMachine.findUniqueOrThrow({ where: { id: draft.id } });
      const audit = await counts(q);
      expectMarketsError(await api(q, "PATCH", `/machines/${draft.id}`, { identityRef: machine.did }), 409, "MACHINE_IDENTITY_EXISTS");
      expectMarketsError(await api(q, "PATCH", `/machines/${draft.id}`, { identityRef: lower(machine.machineAddress) }), 409, "MACHINE_IDENTITY_EXISTS");
      expectMarketsError(await api(q, "PATCH", `/machines/${draft.id}`, { identityRef: unknownRef }), 404, "NOT_FOUND");
      expect(await prismaOf(q).marketMachine.findUniqueOrThrow({ where: { id: draft.id } })).toEqual(draftRow);
      expect(await counts(q)).toEqual(audit);

      const other = q.machine("active", 1);
      const patched = expectOk(await api(q, "PATCH", `/machines/${draft.id}`, { identityRef: lower(other.machineAddress), status: "active" })).item;
      expect(patched).toMatchObject({ identityRef: lower(other.machineAddress), status: "active" });
      expect((await prismaOf(q).marketMachine.findUniqueOrThrow({ where: { id: draft.id } })).onChainMachineId).toBe(other.machineId);
    } finally {
      await q.close();
    }
  }, PLATFORM_START_TIMEOUT_MS);
});
