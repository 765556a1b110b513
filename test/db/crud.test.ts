/** Every model round-trips through the generated client: create, read, update, delete, and its constraints. */
import { describe, expect, it } from "vitest";
import { isStoreFailure, isUniqueViolation, type VerifyChallenge } from "../../subgraphs/shared/db/index.js";
import { databaseTargets, withTestDatabase } from "../support/db.js";
import { challengeData } from "./fixtures.js";

describe.each(databaseTargets())("CRUD on %s", (target) => {
  const testDb = withTestDatabase(target);

  it("VerifyChallenge: defaults, BigInt, timestamps with milliseconds, unique nonce hash", async () => {
    const { prisma } = testDb.db;
    const data = challengeData();
    const created = await prisma.verifyChallenge.create({ data });
    expect(created.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(created.state).toBe("issued");
    expect(created.submissionHash).toBeNull();

    const read = await prisma.verifyChallenge.findUniqueOrThrow({ where: { nonceHash: data.nonceHash } });
    expect(read.expiresAt).toBe(data.expiresAt);
    expect(read.issuedAt).toEqual(data.issuedAt);

    const leaseEnd = new Date("2026-06-01T00:00:00.123Z");
    const updated = await prisma.verifyChallenge.update({
      where: { id: created.id },
      data: { state: "checking", checkingUntil: leaseEnd, submissionHash: "ab".repeat(32) },
    });
    expect(updated.checkingUntil?.toISOString()).toBe(leaseEnd.toISOString());
    expect(updated.updatedAt.getTime()).toBeGreaterThanOrEqual(created.updatedAt.getTime());

    const duplicate = await prisma.verifyChallenge.create({ data: { ...challengeData(), nonceHash: data.nonceHash } }).catch((e: unknown) => e);
    expect(isUniqueViolation(duplicate)).toBe(true);
    expect(isUniqueViolation(duplicate, "verify_challenge_nonce_hash_key")).toBe(true);
    expect(isUniqueViolation(duplicate, "verify_challenge_receipt_id_key")).toBe(false);
    expect(isStoreFailure(duplicate)).toBe(false);

    await prisma.verifyChallenge.delete({ where: { id: created.id } });
    expect(await prisma.verifyChallenge.findUnique({ where: { id: created.id } })).toBeNull();
  });

  it("VerifyEvidence: linked to its challenge, which cannot be deleted while evidence exists", async () => {
    const { prisma } = testDb.db;
    const challenge: VerifyChallenge = await prisma.verifyChallenge.create({ data: challengeData() });
    const receiptId = crypto.randomUUID();
    await prisma.verifyEvidence.create({
      data: {
        receiptId,
        challengeId: challenge.id,
        machineId: challenge.machineId,
        chipRef: `0x${"11".repeat(32)}`,
        evidenceHash: `0x${"22".repeat(32)}`,
        body: '{"evidence":"é"}',
        acceptedAt: new Date(),
      },
    });

    const withChallenge = await prisma.verifyEvidence.findUniqueOrThrow({ where: { receiptId }, include: { challenge: true } });
    expect(withChallenge.challenge.id).toBe(challenge.id);
    expect(withChallenge.body).toBe('{"evidence":"é"}');
    const unattested = await prisma.verifyEvidence.findMany({ where: { attestedAt: null }, orderBy: { acceptedAt: "asc" } });
    expect(unattested.map((e) => e.receiptId)).toContain(receiptId);

    await prisma.verifyEvidence.update({ where: { receiptId }, data: { attestationUid: "0x01", attestedAt: new Date() } });
    const restricted = await prisma.verifyChallenge.delete({ where: { id: challenge.id } }).catch((e: { code?: string }) => e);
    expect(restricted).toMatchObject({ code: "P2003" });

    await prisma.verifyEvidence.delete({ where: { receiptId } });
    await prisma.verifyChallenge.delete({ where: { id: challenge.id } });
  });

  it("MonetizationDecision: upsert keeps one row per machine and deployment", async () => {
    const { prisma } = testDb.db;
    const machineId = `m-${crypto.randomUUID()}`;
    const key = { deployment_machineId: { deployment: "v1", machineId } };
    const decision = { optedIn: true, signer: "0xsigner", timestamp: 1_767_225_601n, updatedAt: new Date() };
    await prisma.monetizationDecision.upsert({ where: key, create: { machineId, ...decision }, update: decision });
    await prisma.monetizationDecision.upsert({
      where: key,
      create: { machineId, ...decision },
      update: { optedIn: false, timestamp: 1_767_225_700n },
    });
    await prisma.monetizationDecision.create({ data: { deployment: "v2", machineId, ...decision } });
    const read = await prisma.monetizationDecision.findUniqueOrThrow({ where: key });
    expect(read).toMatchObject({ deployment: "v1", optedIn: false, timestamp: 1_767_225_700n, signer: "0xsigner" });
    expect(await prisma.monetizationDecision.count({ where: { machineId } })).toBe(2);
    await prisma.monetizationDecision.deleteMany({ where: { machineId } });
  });

  it("MarketMachine: create, list, update, delete; arrays and JSON round-trip", async () => {
    const { prisma } = testDb.db;
    const id = `mach_${Date.now().toString(16)}${Math.floor(Math.random() * 1000)}`;
    const now = new Date();
    await prisma.marketMachine.create({
      data: {
        id, displayName: "crud", status: "active", ownerId: "owner", machineType: "robot", runtimeProfile: "edge",
        capabilities: ["a", "b"], policyIds: [], skillKeys: ["s"], labels: { zone: "x" }, createdAt: now, updatedAt: now,
      },
    });
    expect(await prisma.marketMachine.findMany({ where: { status: "active", id } })).toEqual([
      expect.objectContaining({ capabilities: ["a", "b"], policyIds: [], skillKeys: ["s"], labels: { zone: "x" } }),
    ]);
    await prisma.marketMachine.update({ where: { id }, data: { status: "blocked" } });
    expect((await prisma.marketMachine.findUniqueOrThrow({ where: { id } })).status).toBe("blocked");
    await prisma.marketMachine.delete({ where: { id } });
    expect(await prisma.marketMachine.findUnique({ where: { id } })).toBeNull();
  });
});
