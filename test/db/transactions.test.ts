/**
 * Interactive transactions, row locks and conditional updates behave on both adapters; the verify service's
 * single-use challenge state machine (issued -> checking -> consumed) is built from exactly these pieces.
 */
import { describe, expect, it } from "vitest";
import { isStoreFailure, openDatabase, type PrismaClient } from "../../subgraphs/shared/db/index.js";
import { databaseTargets, sql, withTestDatabase } from "../support/db.js";
import { challengeData } from "./fixtures.js";
import { holdFirst } from "../support/barrier.js";
import { waitUntil } from "../support/wait.js";

/** issued -> checking, at most once: lock the row, then update only if it is still issued. */
async function claimForChecking(prisma: PrismaClient, id: string): Promise<boolean> {
  return prisma.$transaction(async (tx) => {
    const [row] = await tx.$queryRaw<{ state: string }[]>`
      SELECT state FROM verify_challenge WHERE id = ${id}::uuid FOR UPDATE`;
    if (row?.state !== "issued") return false;
    const claimed = await tx.$queryRaw<{ id: string; expires_at: bigint }[]>`
      UPDATE verify_challenge
         SET state = 'checking', checking_until = now() + interval '30 seconds', updated_at = now()
       WHERE id = ${id}::uuid AND state = 'issued'
      RETURNING id, expires_at`;
    return claimed.length === 1;
  });
}

describe.each(databaseTargets())("transactions on %s", (target) => {
  const testDb = withTestDatabase(target);

  it("lets exactly one of many concurrent claims win", async () => {
    const { prisma } = testDb.db;
    const { id } = await prisma.verifyChallenge.create({ data: challengeData() });
    const results = await Promise.all(Array.from({ length: 8 }, () => claimForChecking(prisma, id)));
    expect(results.filter(Boolean)).toHaveLength(1);
    expect((await prisma.verifyChallenge.findUniqueOrThrow({ where: { id } })).state).toBe("checking");
  });

  it("applies a conditional update once, and UPDATE ... RETURNING reports the new row", async () => {
    const { prisma } = testDb.db;
    const { id } = await prisma.verifyChallenge.create({ data: challengeData({ state: "checking" }) });
    const consume = () =>
      prisma.$transaction(async (tx) => {
        const { count } = await tx.verifyChallenge.updateMany({
          where: { id, state: "checking" },
          data: { state: "consumed", receiptId: crypto.randomUUID(), checkingUntil: null },
        });
        const touched = await tx.$executeRaw`UPDATE verify_challenge SET updated_at = now() WHERE id = ${id}::uuid AND state = 'consumed'`;
        return { count, touched };
      });
    expect(await consume()).toEqual({ count: 1, touched: 1 });
    expect(await consume()).toEqual({ count: 0, touched: 1 });
    const [row] = await prisma.$queryRaw<{ state: string; expires_at: bigint }[]>`
      UPDATE verify_challenge SET updated_at = now() WHERE id = ${id}::uuid RETURNING state, expires_at`;
    expect(row).toEqual({ state: "consumed", expires_at: 1_777_000_000n });
  });

  it("rolls every write back when the callback throws", async () => {
    const { prisma } = testDb.db;
    const { id } = await prisma.verifyChallenge.create({ data: challengeData() });
    const failed = prisma.$transaction(async (tx) => {
      await tx.verifyChallenge.update({ where: { id }, data: { state: "rejected", rejectReason: "test" } });
      await tx.$executeRaw`UPDATE verify_challenge SET submission_hash = 'x' WHERE id = ${id}::uuid`;
      throw new Error("abort");
    });
    await expect(failed).rejects.toThrow("abort");
    const row = await prisma.verifyChallenge.findUniqueOrThrow({ where: { id } });
    expect(row).toMatchObject({ state: "issued", rejectReason: null, submissionHash: null });
  });
});

describe.skipIf(!process.env.DATABASE_URL)("transactions across clients on one PostgreSQL", () => {
  const testDb = withTestDatabase("postgres");

  it("makes a second client wait on SELECT ... FOR UPDATE until the first commits", async () => {
    const other = await openDatabase({ dataDir: ".", databaseUrl: testDb.url });
    try {
      const { id } = await testDb.db.prisma.verifyChallenge.create({ data: challengeData() });
      const events: string[] = [];
      const gate = holdFirst();
      const first = testDb.db.prisma.$transaction(
        async (tx) => {
          await tx.$queryRaw`SELECT id FROM verify_challenge WHERE id = ${id}::uuid FOR UPDATE`;
          events.push("first locked");
          await gate.pass(); // held with the row locked until the second client is seen waiting
          await tx.$executeRaw`UPDATE verify_challenge SET state = 'checking' WHERE id = ${id}::uuid`;
          events.push("first committing");
        },
        { timeout: 120_000 },
      );
      await gate.entered;
      const second = other.prisma.$transaction(
        async (tx) => {
          const [row] = await tx.$queryRaw<{ state: string }[]>`
            SELECT state FROM verify_challenge WHERE id = ${id}::uuid FOR UPDATE`;
          events.push(`second read ${row!.state}`);
        },
        { timeout: 120_000 },
      );
      // The server itself says the second client waits for a lock: no sleep decides the order.
      const waiting = waitUntil(async () => {
        const [row] = await sql<{ n: string }>(
          testDb.url!,
          "SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
        );
        return Number(row!.n) > 0;
      });
      await waiting.finally(() => expect(events).toEqual(["first locked"])).finally(() => gate.release());
      await Promise.all([first, second]);
      expect(events).toEqual(["first locked", "first committing", "second read checking"]);
    } finally {
      await other.close();
    }
  });

  it("fails a transaction that outlives transactionTimeoutMs (DB_TRANSACTION_TIMEOUT_MS) as a store outage, writing nothing", async () => {
    const deadlineMs = 200;
    const other = await openDatabase({ dataDir: ".", databaseUrl: testDb.url, transactionTimeoutMs: deadlineMs });
    try {
      const { id } = await testDb.db.prisma.verifyChallenge.create({ data: challengeData() });
      const gate = holdFirst();
      const first = testDb.db.prisma.$transaction(
        async (tx) => {
          await tx.$queryRaw`SELECT id FROM verify_challenge WHERE id = ${id}::uuid FOR UPDATE`;
          await gate.pass(); // the row stays locked until the second client's deadline has passed
          await tx.$executeRaw`UPDATE verify_challenge SET state = 'checking' WHERE id = ${id}::uuid`;
        },
        { timeout: 120_000 },
      );
      await gate.entered;
      const second = other.prisma
        .$transaction(async (tx) => {
          await tx.$queryRaw`SELECT id FROM verify_challenge WHERE id = ${id}::uuid FOR UPDATE`;
          await tx.$executeRaw`UPDATE verify_challenge SET state = 'rejected', reject_reason = 'late' WHERE id = ${id}::uuid`;
        })
        .then(() => undefined, (error: unknown) => error);
      // The deadline is the subject here: the lock is held until the deadline has passed since the server first showed
      // the second client waiting (its transaction, and so its deadline, started before that).
      let waitingSince: number | undefined;
      await waitUntil(async () => {
        if (waitingSince === undefined) {
          const [row] = await sql<{ n: string }>(
            testDb.url!,
            "SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
          );
          if (Number(row!.n) > 0) waitingSince = performance.now();
        }
        return waitingSince !== undefined && performance.now() - waitingSince > deadlineMs;
      }).finally(() => gate.release());
      await first;
      const error = await second;
      expect(error).toBeInstanceOf(Error);
      expect(isStoreFailure(error)).toBe(true);
      const row = await testDb.db.prisma.verifyChallenge.findUniqueOrThrow({ where: { id } });
      expect(row).toMatchObject({ state: "checking", rejectReason: null });
    } finally {
      await other.close();
    }
  });

  it("lets one claim win when separate clients race", async () => {
    const clients = await Promise.all(
      Array.from({ length: 3 }, () => openDatabase({ dataDir: ".", databaseUrl: testDb.url }, { poolSize: 4 })),
    );
    try {
      const { id } = await testDb.db.prisma.verifyChallenge.create({ data: challengeData() });
      const results = await Promise.all(clients.flatMap((c) => [1, 2, 3].map(() => claimForChecking(c.prisma, id))));
      expect(results.filter(Boolean)).toHaveLength(1);
    } finally {
      await Promise.all(clients.map((c) => c.close()));
    }
  });
});

describe("transactions on pglite (one connection)", () => {
  const testDb = withTestDatabase("pglite");

  it("runs interactive transactions one after another, never interleaved", async () => {
    const { prisma } = testDb.db;
    const events: string[] = [];
    const gate = holdFirst();
    const transaction = (name: string, hold: boolean) =>
      prisma.$transaction(
        async (tx) => {
          events.push(`${name} start`);
          await tx.$queryRaw`SELECT 1`;
          if (hold) await gate.pass();
          events.push(`${name} end`);
        },
        { timeout: 120_000 },
      );
    const a = transaction("a", true);
    await gate.entered; // a is inside its transaction, held
    const b = transaction("b", false);
    // Give b every chance to start (event-loop turns, not wall-clock time): it must not while a is open.
    for (let turn = 0; turn < 100; turn++) await new Promise((resolve) => setImmediate(resolve));
    expect(events).toEqual(["a start"]);
    gate.release();
    await Promise.all([a, b]);
    expect(events).toEqual(["a start", "a end", "b start", "b end"]);
  });
});
