/**
 * `Query.machine` through the gateway answers for every machine some subgraph knows (the machine registry, the
 * identity registry, the markets bindings), each field null where its subgraph has nothing, and null for an ID no
 * subgraph knows. The REST routes of the same machines answer alongside, over real sockets, on the real chain.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { get } from "../support/http.js";
import { seedBoundMachine, registerFreshIdentity } from "../support/machine-sessions.js";
import { graphql, PLATFORM_START_TIMEOUT_MS, startIsolatedPlatform, type IsolatedPlatform } from "../support/platform.js";
import { rated } from "../ratings/helpers.js";

let p: IsolatedPlatform;
beforeAll(async () => {
  p = await startIsolatedPlatform();
}, PLATFORM_START_TIMEOUT_MS);
afterAll(() => p?.close());

const MACHINE = `query ($id: String!) { machine(machineId: $id) {
  machineId
  verification { machineId verification { chip { status } } }
  rating { machineId mcr mcrScore }
  profile { name details { machineId } }
  v2: rating(deployment: V2) { mcr }
  marketMachine { id onChainMachineId identityRef status createdAt }
  marketsRegistration { identityRef status registeredAt }
} }`;

async function machine(id: string) {
  const { status, body } = await graphql(p.graphql, MACHINE, { id });
  expect(status).toBe(200);
  expect(body.errors).toBeUndefined();
  return body.data.machine;
}

describe("Query.machine across the subgraphs", () => {
  it("a machine of the identity registry only (1.0): its rating and profile, as REST serves them; no verification", async () => {
    const seven = rated(p, 7);
    const rest = await get(`${p.http}/mcr/${seven.did}`);
    expect(rest.status).toBe(200);
    const profile = await get(`${p.http}/machine/${seven.did}`);
    expect(profile.status).toBe(200);

    expect(await machine("7")).toEqual({
      machineId: "7",
      verification: null,
      rating: { machineId: "7", mcr: "AAA", mcrScore: rest.json().mcr_score },
      profile: { name: profile.json().name, details: { machineId: "7" } },
      v2: null,
      marketMachine: null,
      marketsRegistration: null,
    });
    expect(rest.json().mcr).toBe("AAA");
  });

  it("a machine of the machine registry only: its verification, no 1.0 rating, no markets record", async () => {
    const fresh = await registerFreshIdentity(p);
    const answer = await machine(fresh.machineId);
    expect(answer).toMatchObject({
      machineId: fresh.machineId,
      verification: { machineId: fresh.machineId, verification: { chip: { status: "UNVERIFIED" } } },
      rating: null,
      profile: null,
      marketMachine: null,
      marketsRegistration: null,
    });
    const rest = await get(`${p.http}/v1/verify/machines/${fresh.machineId}`);
    expect(rest.status).toBe(200);
  });

  it("a machine bound to a market machine record: its markets fields beside its verification", async () => {
    const { id, identity } = await seedBoundMachine(p);
    const answer = await machine(identity.machineId);
    expect(answer.marketMachine).toMatchObject({ id, onChainMachineId: identity.machineId });
    // The registration is the same record in brief: its identityRef, status and creation time.
    const record = await p.platform.database!.prisma.marketMachine.findUniqueOrThrow({ where: { id } });
    expect(answer.marketMachine).toMatchObject({ identityRef: identity.did, status: "ACTIVE", createdAt: record.createdAt.toISOString() });
    expect(answer.marketsRegistration).toEqual({ identityRef: identity.did, status: "ACTIVE", registeredAt: record.createdAt.toISOString() });
    expect(answer.verification.machineId).toBe(identity.machineId);
    expect(answer.rating).toBeNull();
  });

  it("a machine both registries know (demo machine 1): every subgraph's fields", async () => {
    const answer = await machine("1");
    expect(answer.verification.verification.chip.status).toBe("VERIFIED");
    expect(answer.rating.machineId).toBe("1");
    expect(answer.profile.details.machineId).toBe("1");
  });

  it.each(["424242", "999"])("an ID no subgraph knows (%s) answers null without an error", async (id) => {
    const { body } = await graphql(p.graphql, MACHINE, { id });
    expect(body).toEqual({ data: { machine: null } });
  });

  it("a malformed ID is still INVALID_MACHINE_ID", async () => {
    const { body } = await graphql(p.graphql, MACHINE, { id: "07" });
    expect(body.data?.machine ?? null).toBeNull();
    expect(body.errors?.[0]?.extensions?.code).toBe("INVALID_MACHINE_ID");
  });
});
