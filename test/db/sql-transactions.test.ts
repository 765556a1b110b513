/**
 * `Database.transaction`, the plain-SQL interactive transaction of the markets API's hot writes: it commits, rolls
 * back, reports unique violations and store outages the way Prisma's transactions do, and on PostgreSQL keeps
 * Prisma's transaction timeout and its connection pool healthy.
 */
import { describe, expect, it } from "vitest";
import { isStoreFailure, isUniqueViolation, openDatabase } from "../../subgraphs/shared/db/index.js";
import { dbTransactionDuration } from "../../subgraphs/shared/observability/metrics.js";
import { holdFirst } from "../support/barrier.js";
import { databaseTargets, sql, withTestDatabase } from "../support/db.js";
import { waitUntil } from "../support/wait.js";

const INSERT_EVENT = `INSERT INTO market_audit_event (kind, machine_id, actor_type, actor_id, occurred_at, data)
  VALUES ($1, NULL, 'system', NULL, $2::timestamptz, $3::jsonb) RETURNING id::text AS id`;

async function transactionCount(database: string, outcome: string): Promise<number> {
  const metric = await dbTransactionDuration.get();
  const count = metric.values.find((v) => v.metricName === "db_transaction_duration_seconds_count" && v.labels.database === database && v.labels.outcome === outcome);
  return count?.value ?? 0;
}

describe.each(databaseTargets())("SQL transactions on %s", (target) => {
  const testDb = withTestDatabase(target);
  const count = async (kind: string) => testDb.db.prisma.marketAuditEvent.count({ where: { kind: kind as never } });

  it("commits every statement when the work resolves, answering its value; the commit is observed", async () => {
    const commits = await transactionCount(target, "commit");
    const ids = await testDb.db.transaction(async (sql) => {
      const first = await sql<{ id: string }>(INSERT_EVENT, ["test.commit", new Date(), JSON.stringify({ n: 1 })]);
      const second = await sql<{ id: string }>(INSERT_EVENT, ["test.commit", new Date(), JSON.stringify({ n: 2 })]);
      return [first[0]!.id, second[0]!.id];
    });
    expect(BigInt(ids[1]!)).toBeGreaterThan(BigInt(ids[0]!));
    expect(await count("test.commit")).toBe(2);
    const rows = await testDb.db.prisma.marketAuditEvent.findMany({ where: { kind: "test.commit" as never }, orderBy: { id: "asc" } });
    expect(rows.map((r) => r.data)).toEqual([{ n: 1 }, { n: 2 }]);
    expect(await transactionCount(target, "commit")).toBe(commits + 1);
  });

  it("rolls every statement back when the work throws, passing its error on unchanged", async () => {
    const rollbacks = await transactionCount(target, "rollback");
    const abort = new Error("abort");
    const failed = testDb.db.transaction(async (sql) => {
      await sql(INSERT_EVENT, ["test.rollback", new Date(), "{}"]);
      throw abort;
    });
    await expect(failed).rejects.toBe(abort);
    expect(await count("test.rollback")).toBe(0);
    expect(await transactionCount(target, "rollback")).toBe(rollbacks + 1);
    // The connection went back clean: the next transaction commits.
    await testDb.db.transaction((sql) => sql(INSERT_EVENT, ["test.rollback", new Date(), "{}"]));
    expect(await count("test.rollback")).toBe(1);
  });

  it("the first statement runs inside the transaction: two statements see one transaction ID, committed together", async () => {
    const ids = await testDb.db.transaction(async (sql) => {
      const [first] = await sql<{ xid: string }>("SELECT pg_current_xact_id()::text AS xid", []);
      await sql(INSERT_EVENT, ["test.first", new Date(), "{}"]);
      const [second] = await sql<{ xid: string }>("SELECT pg_current_xact_id()::text AS xid", []);
      return [first!.xid, second!.xid];
    });
    expect(ids[1]).toBe(ids[0]);
    expect(await count("test.first")).toBe(1);
  });

  it("a first statement the database refuses (its text, or its run) fails alone, writes nothing, and leaves the statement and the pool usable", async () => {
    const bad = "SELECT no_such_column FROM market_audit_event WHERE id > $1::bigint";
    const failing = () => testDb.db.transaction((sql) => sql(bad, [0])).then(() => undefined, (error: unknown) => error as Error);
    // Twice: the second use of the refused text must be refused for the same reason (parsed again), not as an
    // unknown prepared statement.
    for (const error of [await failing(), await failing()]) {
      expect(error).toBeInstanceOf(Error);
      expect(error!.message).toMatch(/no_such_column/);
      expect(isStoreFailure(error)).toBe(false);
    }
    const divide = await testDb.db
      .transaction(async (sql) => {
        await sql("SELECT 1 / $1::int AS x", [0]);
        await sql(INSERT_EVENT, ["test.first-fails", new Date(), "{}"]);
      })
      .then(() => undefined, (error: unknown) => error as Error);
    expect(divide?.message).toMatch(/division by zero/);
    expect(await count("test.first-fails")).toBe(0);
    // Every pooled connection still serves transactions, the same statement included.
    const answers = await Promise.all(Array.from({ length: 4 }, (_, i) => testDb.db.transaction(async (sql) => {
      const [row] = await sql<{ x: number }>("SELECT 1 / $1::int AS x", [1]);
      await sql(INSERT_EVENT, ["test.first-fails", new Date(), JSON.stringify({ i })]);
      return row!.x;
    })));
    expect(answers).toEqual([1, 1, 1, 1]);
    expect(await count("test.first-fails")).toBe(4);
  });

  it("reports a unique violation as isUniqueViolation, naming its index, and writes nothing", async () => {
    const failed = await testDb.db
      .transaction(async (sql) => {
        await sql(INSERT_EVENT, ["test.unique", new Date(), "{}"]);
        await sql("CREATE TEMP TABLE sql_tx_unique (id int PRIMARY KEY) ON COMMIT DROP", []);
        await sql("INSERT INTO sql_tx_unique (id) VALUES ($1::int), ($1::int)", [1]);
      })
      .then(() => undefined, (error: unknown) => error);
    expect(failed).toBeInstanceOf(Error);
    expect(isUniqueViolation(failed)).toBe(true);
    expect(isUniqueViolation(failed, "sql_tx_unique_pkey")).toBe(true);
    expect(isUniqueViolation(failed, "another_index")).toBe(false);
    expect(isStoreFailure(failed)).toBe(false);
    expect(await count("test.unique")).toBe(0);
  });

  it("a statement that fails rolls the transaction back; the error is the database's, not a store outage", async () => {
    const failed = await testDb.db
      .transaction(async (sql) => {
        await sql(INSERT_EVENT, ["test.bad", new Date(), "{}"]);
        await sql("SELECT no_such_column FROM market_audit_event", []);
      })
      .then(() => undefined, (error: unknown) => error);
    expect(failed).toBeInstanceOf(Error);
    expect(isStoreFailure(failed)).toBe(false);
    expect(await count("test.bad")).toBe(0);
  });

  it("values mean what pg sends for them, in a statement and in a transaction: a boolean, number or Date given to a text parameter, an object to jsonb", async () => {
    const at = new Date("2026-12-02T05:54:38.123Z");
    const VALUES = "SELECT $1::text AS b, $2::text AS n, $3::jsonb AS o, $4::timestamptz AS at, $5::bool AS f, $6::text[] AS arr, $7::bytea AS bytes, $8::text AS none, $4::timestamptz = $9::text::timestamptz AS same";
    const values = [true, 5, { x: [1, "y"] }, at, false, ["a", "b,c"], Buffer.from([0, 255]), null, at];
    const direct = await testDb.db.statement<Record<string, unknown>>(VALUES, values);
    const inTransaction = await testDb.db.transaction((sql) => sql<Record<string, unknown>>(VALUES, values));
    for (const [row] of [direct, inTransaction]) {
      expect({ ...row, bytes: [...(row!.bytes as Uint8Array)] }).toEqual({
        b: "true", n: "5", o: { x: [1, "y"] }, at, f: false, arr: ["a", "b,c"], bytes: [0, 255], none: null, same: true,
      });
    }
  });

  it("arrays come back alike on both databases: arrays of scalar types parsed, an array of table rows as its text", async () => {
    const [row] = await testDb.db.statement<Record<string, unknown>>(
      "SELECT ARRAY[1, 2]::int[] AS ints, ARRAY['2026-12-02T05:54:38.123Z']::timestamptz[] AS ats, ARRAY['{\"a\": 1}']::jsonb[] AS docs, ARRAY[true]::bool[] AS flags, '{}'::pg_catalog.pg_namespace[] AS records",
      [],
    );
    expect(row).toEqual({ ints: [1, 2], ats: [new Date("2026-12-02T05:54:38.123Z")], docs: [{ a: 1 }], flags: [true], records: "{}" });
  });
});

describe("SQL transactions on PGlite: the wait to start and the timeout", () => {
  const inMemory = (limits: { transactionMaxWaitMs?: number; transactionTimeoutMs?: number }) => openDatabase({ dataDir: ".", ...limits }, { inMemory: true });
  const events = async (db: Awaited<ReturnType<typeof openDatabase>>, kind: string) => db.prisma.marketAuditEvent.count({ where: { kind: kind as never } });
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it("a transaction still running after transactionTimeoutMs fails as a store outage and writes nothing; the next one commits", async () => {
    const db = await inMemory({ transactionTimeoutMs: 200 });
    try {
      const observed = await transactionCount("pglite", "rollback");
      // Its next statement after the deadline is refused.
      const refused = await db
        .transaction(async (sql) => {
          await sql(INSERT_EVENT, ["test.pglite-timeout", new Date(), "{}"]);
          await sleep(350);
          await sql(INSERT_EVENT, ["test.pglite-timeout", new Date(), "{}"]);
        })
        .then(() => undefined, (error: unknown) => error);
      expect(isStoreFailure(refused)).toBe(true);
      // Work that finishes after the deadline without another statement is rolled back all the same.
      const late = await db
        .transaction(async (sql) => {
          await sql(INSERT_EVENT, ["test.pglite-timeout", new Date(), "{}"]);
          await sleep(350);
          return "done";
        })
        .then(() => undefined, (error: unknown) => error);
      expect(isStoreFailure(late)).toBe(true);
      expect(await events(db, "test.pglite-timeout")).toBe(0);
      expect(await transactionCount("pglite", "rollback")).toBe(observed + 2);
      await db.transaction((sql) => sql(INSERT_EVENT, ["test.pglite-after", new Date(), "{}"]));
      expect(await events(db, "test.pglite-after")).toBe(1);
    } finally {
      await db.close();
    }
  });

  it("a transaction that cannot start within transactionMaxWaitMs fails as a store outage at once, and its work never runs", async () => {
    const db = await inMemory({ transactionMaxWaitMs: 200 });
    try {
      const gate = holdFirst();
      const holder = db.transaction(async (sql) => {
        await sql(INSERT_EVENT, ["test.pglite-holder", new Date(), "{}"]);
        await gate.pass();
      });
      await gate.entered;
      let ran = false;
      const started = performance.now();
      const waiting = await db
        .transaction(async (sql) => {
          ran = true;
          await sql(INSERT_EVENT, ["test.pglite-late", new Date(), "{}"]);
        })
        .then(() => undefined, (error: unknown) => error);
      const waited = performance.now() - started;
      expect(isStoreFailure(waiting)).toBe(true);
      expect(waited).toBeGreaterThanOrEqual(180);
      expect(waited).toBeLessThan(2_000);
      gate.release();
      await holder;
      // The abandoned transaction got the lock after the holder, and ended without running its work.
      await db.transaction((sql) => sql(INSERT_EVENT, ["test.pglite-after", new Date(), "{}"]));
      expect(ran).toBe(false);
      expect(await events(db, "test.pglite-late")).toBe(0);
      expect(await events(db, "test.pglite-holder")).toBe(1);
      expect(await events(db, "test.pglite-after")).toBe(1);
    } finally {
      await db.close();
    }
  });
});

describe.skipIf(!process.env.DATABASE_URL)("SQL transactions on PostgreSQL: timeout and pool", () => {
  const testDb = withTestDatabase("postgres");

  it("a transaction that outlives transactionTimeoutMs (waiting on a lock) fails as a store outage and writes nothing; the pool keeps serving", async () => {
    const deadlineMs = 300;
    const other = await openDatabase({ dataDir: ".", databaseUrl: testDb.url, transactionTimeoutMs: deadlineMs }, { poolSize: 1 });
    try {
      const gate = holdFirst();
      const holder = testDb.db.prisma.$transaction(
        async (tx) => {
          await tx.$executeRaw`SELECT pg_advisory_xact_lock(4242)`;
          await tx.$queryRaw`SELECT 1 FROM market_machine LIMIT 1`;
          await gate.pass();
        },
        { timeout: 120_000 },
      );
      await gate.entered;
      const started = performance.now();
      const late = await other
        .transaction(async (sql) => {
          await sql(INSERT_EVENT, ["test.timeout", new Date(), "{}"]);
          await sql("SELECT pg_advisory_xact_lock(4242)", []); // waits on the holder past the deadline
          await sql(INSERT_EVENT, ["test.timeout", new Date(), "{}"]);
        })
        .then(() => undefined, (error: unknown) => error);
      const waited = performance.now() - started;
      gate.release();
      await holder;
      expect(late).toBeInstanceOf(Error);
      expect(isStoreFailure(late)).toBe(true);
      expect(waited).toBeGreaterThanOrEqual(deadlineMs - 20);
      expect(await testDb.db.prisma.marketAuditEvent.count({ where: { kind: "test.timeout" as never } })).toBe(0);
      // The server ended the expired session: no backend of it is left waiting or idle in a transaction.
      await waitUntil(async () => {
        const [row] = await sql<{ n: string }>(testDb.url!, "SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND state LIKE 'idle in transaction%'");
        return Number(row!.n) === 0;
      });
      // The one pooled connection was replaced: the next transaction on the same pool commits.
      await other.transaction((s) => s(INSERT_EVENT, ["test.timeout-after", new Date(), "{}"]));
      expect(await testDb.db.prisma.marketAuditEvent.count({ where: { kind: "test.timeout-after" as never } })).toBe(1);
    } finally {
      await other.close();
    }
  });

  it("concurrent transactions on one pool each commit their own statements (a connection per transaction)", async () => {
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        testDb.db.transaction(async (sql) => {
          const pid = async () => (await sql<{ pid: number }>("SELECT pg_backend_pid() AS pid", []))[0]!.pid;
          const before = await pid();
          const [row] = await sql<{ id: string }>(INSERT_EVENT, ["test.concurrent", new Date(), JSON.stringify({ i })]);
          // Its own uncommitted row is visible to it alone: every statement ran in this transaction, on one connection.
          const [own] = await sql<{ n: number }>("SELECT count(*)::int AS n FROM market_audit_event WHERE kind = 'test.concurrent' AND data->>'i' = $1", [String(i)]);
          return { id: row!.id, samePid: before === (await pid()), own: own!.n };
        }),
      ),
    );
    expect(new Set(results.map((r) => r.id)).size).toBe(12);
    expect(results.every((r) => r.samePid && r.own === 1)).toBe(true);
    expect(await testDb.db.prisma.marketAuditEvent.count({ where: { kind: "test.concurrent" as never } })).toBe(12);
  });
});
