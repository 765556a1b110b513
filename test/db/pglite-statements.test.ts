/**
 * The platform's statements on PGlite run as named prepared statements (subgraphs/shared/db/pglite-statements.ts):
 * a text is parsed once per database and executed by name after that, in and out of transactions; a table altered at
 * run time fails the statement prepared before once, with the database's own error, and it is prepared again; past
 * the limit of kept texts, new texts still run, unprepared; a closed database refuses them as a store outage. A
 * transaction sends its BEGIN with its first statement and ends in one call.
 */
import { PGlite } from "@electric-sql/pglite";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { isStoreFailure, openDatabase, type Database } from "../../subgraphs/shared/db/index.js";
import { PgliteStatements, pgliteStatement } from "../../subgraphs/shared/db/pglite-statements.js";
import { pgliteTransaction } from "../../subgraphs/shared/db/sql-transaction.js";

const PREPARED = "SELECT name, statement FROM pg_prepared_statements ORDER BY name";

describe("statements on PGlite", () => {
  let db: Database;
  beforeAll(async () => {
    db = await openDatabase({ dataDir: "." }, { inMemory: true });
  });
  afterAll(() => db?.close());

  it("a text is prepared once, then executed by name, in and out of transactions, with the same answers", async () => {
    const text = "SELECT $1::int + 1 AS next, $2::text AS label";
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push(await db.statement(text, [i, `s${i}`]));
    for (let i = 3; i < 5; i++) answers.push(await db.transaction((sql) => sql(text, [i, `s${i}`])));
    expect(answers).toEqual([0, 1, 2, 3, 4].map((i) => [{ next: i + 1, label: `s${i}` }]));
    const prepared = (await db.statement<{ name: string; statement: string }>(PREPARED, [])).filter((row) => row.statement === text);
    expect(prepared).toHaveLength(1);
    expect(prepared[0]!.name).toMatch(/^pgl_\d+$/);
  });

  it("a table altered at run time: the statement prepared before fails once with the database's error, then runs with the new columns", async () => {
    await db.statement("CREATE TABLE pgl_altered (id int PRIMARY KEY)", []);
    await db.statement("INSERT INTO pgl_altered (id) VALUES (1)", []);
    const text = "SELECT * FROM pgl_altered";
    expect(await db.statement(text, [])).toEqual([{ id: 1 }]);
    await db.statement("ALTER TABLE pgl_altered ADD COLUMN note text DEFAULT 'n'", []);
    await expect(db.statement(text, [])).rejects.toMatchObject({ code: "0A000" });
    expect(await db.statement(text, [])).toEqual([{ id: 1, note: "n" }]);
  });

  it("a statement the database refuses to prepare is not kept: the same text fails again with its error, and others still run", async () => {
    const text = "SELECT no_such_column FROM pgl_nowhere";
    await expect(db.statement(text, [])).rejects.toMatchObject({ code: "42P01" });
    await expect(db.statement(text, [])).rejects.toMatchObject({ code: "42P01" });
    expect((await db.statement<{ statement: string }>(PREPARED, [])).some((row) => row.statement === text)).toBe(false);
    expect(await db.statement("SELECT 1 AS one", [])).toEqual([{ one: 1 }]);
  });

  it("a closed database refuses a prepared statement, a new one and a transaction at once, as a store outage", async () => {
    const closing = await openDatabase({ dataDir: "." }, { inMemory: true });
    const text = "SELECT $1::int AS n";
    expect(await closing.statement(text, [1])).toEqual([{ n: 1 }]);
    await closing.close();
    const refusals = await Promise.all([
      closing.statement(text, [2]).then(() => undefined, (error: unknown) => error),
      closing.statement("SELECT 3 AS n", []).then(() => undefined, (error: unknown) => error),
      closing.transaction((sql) => sql(text, [4])).then(() => undefined, (error: unknown) => error),
    ]);
    for (const error of refusals) expect(isStoreFailure(error)).toBe(true);
  });

  it("past the limit of kept texts, a new text runs unprepared and answers the same", async () => {
    const pglite = await PGlite.create();
    try {
      const statement = pgliteStatement(pglite, new PgliteStatements(pglite, 2));
      for (const n of [1, 2, 3, 4]) expect(await statement(`SELECT ${n} AS n, $1::text AS t`, [true])).toEqual([{ n, t: "true" }]);
      const kept = (await pglite.query<{ statement: string }>(PREPARED)).rows.map((row) => row.statement);
      expect(kept).toEqual(["SELECT 1 AS n, $1::text AS t", "SELECT 2 AS n, $1::text AS t"]);
    } finally {
      await pglite.close();
    }
  });

  describe("a transaction's calls into the database", () => {
    let pglite: PGlite;
    let transaction: ReturnType<typeof pgliteTransaction>;
    let calls: ReturnType<typeof vi.spyOn>;
    beforeAll(async () => {
      pglite = await PGlite.create();
      await pglite.exec("CREATE TABLE pgl_tx (id int PRIMARY KEY, note text)");
      // One text kept prepared; every other text runs as the unnamed statement.
      transaction = pgliteTransaction(pglite, new PgliteStatements(pglite, 1), 1_000, 5_000);
      calls = vi.spyOn(pglite, "execProtocolStream");
    });
    afterAll(() => pglite?.close());
    const INSERT = "INSERT INTO pgl_tx (id, note) VALUES ($1, $2)";
    /** The one kept text. */
    const INSERTED = `${INSERT} RETURNING xmin::text AS xid`;
    const rows = async () => (await pglite.query<{ id: number; note: string }>("SELECT id, note FROM pgl_tx ORDER BY id")).rows;

    it("BEGIN goes with the first statement and COMMIT is one call; every statement runs in the one transaction", async () => {
      await transaction((sql) => sql(INSERTED, [1, "a"])); // prepares INSERTED
      calls.mockClear();
      const xids = await transaction(async (sql) => {
        const [first] = await sql<{ xid: string }>(INSERTED, [2, "b"]);
        const [second] = await sql<{ xid: string }>(INSERTED, [3, "c"]);
        const [current] = await sql<{ xid: string }>("SELECT pg_current_xact_id()::text AS xid", []);
        return [first!.xid, second!.xid, current!.xid];
      });
      expect(new Set(xids).size).toBe(1);
      // Two kept executions (BEGIN in the first), the unnamed statement's Parse and its execution, and COMMIT.
      expect(calls).toHaveBeenCalledTimes(5);
      expect(await rows()).toEqual([{ id: 1, note: "a" }, { id: 2, note: "b" }, { id: 3, note: "c" }]);
    });

    it("an unnamed statement first in a transaction runs inside it (its BEGIN before the Parse), and a throw rolls every statement back", async () => {
      const seen: number[] = [];
      const failure = new Error("work failed");
      await expect(
        transaction(async (sql) => {
          const [first] = await sql<{ xid: string }>("SELECT txid_current()::text AS xid", []);
          await sql(INSERT, [4, "d"]);
          const [second] = await sql<{ xid: string }>("SELECT txid_current()::text AS xid, 1 AS again", []);
          seen.push(Number(first!.xid), Number(second!.xid));
          throw failure;
        }),
      ).rejects.toBe(failure);
      expect(seen[0]).toBe(seen[1]);
      expect(await rows()).toEqual([{ id: 1, note: "a" }, { id: 2, note: "b" }, { id: 3, note: "c" }]);
      expect(pglite.isInTransaction()).toBe(false);
    });

    it("statements issued at once run after the first one's BEGIN, all in the one transaction", async () => {
      const xid = (n: number) => `SELECT pg_current_xact_id()::text AS xid, ${n} AS n`;
      const xids = await transaction((sql) => Promise.all([xid(1), INSERTED, xid(2)].map((text, i) => sql<{ xid: string }>(text, text === INSERTED ? [10 + i, "x"] : []))));
      expect(new Set(xids.map(([row]) => row!.xid)).size).toBe(1);
      expect(pglite.isInTransaction()).toBe(false);
      await pglite.query("DELETE FROM pgl_tx WHERE id >= 10");
    });

    it("a first statement the database refuses rolls back in one call, and the next transaction commits", async () => {
      calls.mockClear();
      await expect(transaction((sql) => sql(INSERTED, [1, "duplicate"]))).rejects.toMatchObject({ code: "23505" });
      expect(calls).toHaveBeenCalledTimes(2); // BEGIN with the INSERT, then ROLLBACK
      expect(pglite.isInTransaction()).toBe(false);
      await transaction((sql) => sql(INSERT, [5, "e"]));
      expect((await rows()).map((row) => row.id)).toEqual([1, 2, 3, 5]);
    });

    it("a transaction that runs no statement makes no call", async () => {
      calls.mockClear();
      expect(await transaction(async () => "nothing")).toBe("nothing");
      await expect(transaction(async () => Promise.reject(new Error("before any statement")))).rejects.toThrow("before any statement");
      expect(calls).not.toHaveBeenCalled();
    });
  });
});
