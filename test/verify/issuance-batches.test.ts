/**
 * Issuance's fast path batched per machine (issuance-caps.repository.ts): requests for one machine that arrive while
 * its statement is in flight go together in the next statement, which raises both counters by the batch's size only
 * if each stays within its cap and inserts all of the batch or none. The caps stay exact: a batch is never larger than
 * the machine cap or its shard's cap, one the counters cannot take sends its requests on one by one, and a batch that
 * fails writes nothing. On PGlite, and on PostgreSQL with DATABASE_URL.
 */
import { randomUUID } from "node:crypto";
import { beforeEach, describe, expect, it } from "vitest";
import type { Database } from "../../subgraphs/shared/db/index.js";
import { IssuanceCapsRepository, MAX_BATCH, type IssuedChallenge, type OpenChallengeCaps } from "../../subgraphs/verify/issuance-caps.repository.js";
import { challengeData } from "../db/fixtures.js";
import { databaseTargets, withTestDatabase } from "../support/db.js";

const NOW = 1_777_000_000n;

function challenge(machineId: string, overrides: Partial<IssuedChallenge> = {}): IssuedChallenge {
  const { issuedAt, ...fields } = challengeData();
  return { ...fields, issuedAt: new Date(issuedAt), id: randomUUID(), machineId, machineDid: `did:service:${machineId}`, expiresAt: NOW + 300n, ...overrides };
}

/** A repository whose one-statement fast paths are recorded: the batch size each carried, and what it inserted. */
function recordedRepository(db: Database) {
  const statements: Array<{ size: number; inserted: number }> = [];
  const statement: Database["statement"] = async <Row>(text: string, values: readonly unknown[]) => {
    const rows = await db.statement<Row>(text, values);
    const size = text.includes("jsonb_to_recordset") ? Number(values[4]) : 1;
    statements.push({ size, inserted: Number((rows[0] as { inserted?: number } | undefined)?.inserted) });
    return rows;
  };
  return { repository: new IssuanceCapsRepository({ ...db, statement }), statements };
}

describe.each(databaseTargets())("issuance batches on %s", (target) => {
  const testDb = withTestDatabase(target);
  let machine = 0;
  const nextMachine = () => `${target === "pglite" ? 7100 : 7200}${++machine}`;

  // Each case starts with no challenges and no counters: the shard counters are shared by every machine.
  beforeEach(async () => {
    await testDb.db.prisma.$executeRawUnsafe("DELETE FROM verify_challenge");
    await testDb.db.prisma.$executeRawUnsafe("DELETE FROM verify_issuance_counter");
  });

  const burst = (repository: IssuanceCapsRepository, challenges: IssuedChallenge[], caps: OpenChallengeCaps) =>
    Promise.all(challenges.map((c) => repository.insertWithinCaps(c, caps, NOW)));

  async function stored(machineId: string): Promise<number> {
    const [{ n }] = await testDb.db.prisma.$queryRawUnsafe<Array<{ n: number }>>(
      "SELECT count(*)::int AS n FROM verify_challenge WHERE machine_id = $1", machineId);
    return Number(n);
  }
  async function counter(machineId: string): Promise<number | null> {
    const rows = await testDb.db.prisma.$queryRawUnsafe<Array<{ open: number }>>(
      "SELECT open FROM verify_issuance_counter WHERE scope = $1", `machine:${machineId}`);
    return rows.length === 0 ? null : Number(rows[0]!.open);
  }

  it("a burst for one machine goes in batches after the first, and every challenge is stored as issued", async () => {
    const { repository, statements } = recordedRepository(testDb.db);
    const machineId = nextMachine();
    const challenges = Array.from({ length: 3 * MAX_BATCH + 5 }, () => challenge(machineId));
    const results = await burst(repository, challenges, { perMachine: 1_000, total: 100_000 });

    expect(results.every(Boolean)).toBe(true);
    expect(await stored(machineId)).toBe(challenges.length);
    expect(await counter(machineId)).toBe(challenges.length);
    // The first alone, then batches of at most MAX_BATCH: far fewer statements than challenges.
    expect(statements.map((s) => s.size)).toEqual([1, MAX_BATCH, MAX_BATCH, MAX_BATCH, 4]);
    const rows = await testDb.db.prisma.verifyChallenge.findMany({ where: { machineId } });
    const byId = new Map(rows.map((r) => [r.id, r]));
    for (const c of challenges) {
      const row = byId.get(c.id)!;
      expect({ ...row, capShard: undefined, updatedAt: undefined }).toEqual({
        ...c, state: "issued", submissionHash: null, checkingUntil: null, receiptId: null, rejectReason: null, capShard: undefined, updatedAt: undefined,
      });
      expect(row.capShard).toBeGreaterThanOrEqual(0);
      expect(row.capShard).toBeLessThan(16);
    }
  });

  it("no batch is larger than the machine cap: a burst stores exactly the cap", async () => {
    const { repository, statements } = recordedRepository(testDb.db);
    const machineId = nextMachine();
    const results = await burst(repository, Array.from({ length: 20 }, () => challenge(machineId)), { perMachine: 7, total: 100_000 });

    expect(results.filter(Boolean)).toHaveLength(7);
    expect(await stored(machineId)).toBe(7);
    expect(Math.max(...statements.map((s) => s.size))).toBe(7);
  });

  it("no batch is larger than its shard's cap, and the total still takes every challenge it has room for", async () => {
    const { repository, statements } = recordedRepository(testDb.db);
    const machineId = nextMachine();
    // A total of 40 over 16 shards: shards 0-7 may hold 3, shards 8-15 two.
    const results = await burst(repository, Array.from({ length: 20 }, () => challenge(machineId)), { perMachine: 1_000, total: 40 });

    expect(results.every(Boolean)).toBe(true);
    expect(await stored(machineId)).toBe(20);
    expect(statements.some((s) => s.size > 1)).toBe(true);
    expect(Math.max(...statements.map((s) => s.size))).toBeLessThanOrEqual(3);
  });

  it("a batch the machine's counter cannot take sends its requests one by one: exactly the room left is stored", async () => {
    const { repository, statements } = recordedRepository(testDb.db);
    const machineId = nextMachine();
    const caps = { perMachine: 10, total: 100_000 };
    for (let i = 0; i < 6; i++) expect(await repository.insertWithinCaps(challenge(machineId), caps, NOW)).toBe(true);
    statements.length = 0;

    // The first goes alone (7 open), the next seven as one batch that would make 14: refused by the counter, they go
    // on one by one, and three of them fit.
    const results = await burst(repository, Array.from({ length: 8 }, () => challenge(machineId)), caps);
    expect(statements.slice(0, 2)).toEqual([{ size: 1, inserted: 1 }, { size: 7, inserted: 0 }]);
    expect(results.filter(Boolean)).toHaveLength(4);
    expect(await stored(machineId)).toBe(10);
    expect(await counter(machineId)).toBe(10);
  });

  it("a batch that fails writes nothing and fails each of its requests, not the one before it", async () => {
    const { repository, statements } = recordedRepository(testDb.db);
    const machineId = nextMachine();
    const first = challenge(machineId);
    const twin = challenge(machineId);
    // Two challenges of the batch with one nonce hash: the statement breaks the unique index and is rolled back whole.
    const batch = [twin, challenge(machineId), challenge(machineId, { nonceHash: twin.nonceHash }), challenge(machineId)];
    const settled = await Promise.allSettled([first, ...batch].map((c) => repository.insertWithinCaps(c, { perMachine: 1_000, total: 100_000 }, NOW)));

    expect(settled[0]).toEqual({ status: "fulfilled", value: true });
    expect(settled.slice(1).map((s) => s.status)).toEqual(["rejected", "rejected", "rejected", "rejected"]);
    expect(statements).toEqual([{ size: 1, inserted: 1 }]);
    expect(await stored(machineId)).toBe(1);
    expect(await counter(machineId)).toBe(1);
    const shards = await testDb.db.prisma.$queryRawUnsafe<Array<{ n: number }>>(
      "SELECT COALESCE(sum(open), 0)::int AS n FROM verify_issuance_counter WHERE scope LIKE 'total:%'");
    const open = await testDb.db.prisma.$queryRawUnsafe<Array<{ n: number }>>(
      "SELECT count(*)::int AS n FROM verify_challenge");
    // Every shard increment belongs to a stored challenge (the failed batch's was rolled back with it).
    expect(Number(shards[0]!.n)).toBe(Number(open[0]!.n));

    // The machine's queue is free again: the next burst batches as before.
    expect(await burst(repository, [challenge(machineId), challenge(machineId), challenge(machineId)], { perMachine: 1_000, total: 100_000 })).toEqual([true, true, true]);
    expect(await stored(machineId)).toBe(4);
  });
});
