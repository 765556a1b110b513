/**
 * Named (prepared) statements on PostgreSQL (statement-names.ts): one name per statement text, never shared by two
 * texts, a bounded number of named texts; and on a real server, Prisma's queries and the raw statement path run as
 * prepared statements of the connection, giving the same answers as before.
 */
import { createRequire } from "node:module";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { openDatabase } from "../../subgraphs/shared/db/index.js";
import { statementNamer } from "../../subgraphs/shared/db/statement-names.js";
import { createPostgresDatabase, POSTGRES_SKIP_MESSAGE, usesPostgres } from "../support/db.js";

describe("statement names", () => {
  it("one stable name per text, distinct texts distinct names, unnamed beyond the limit", () => {
    const name = statementNamer(3);
    const first = name("SELECT 1");
    expect(first).toMatch(/^s_[A-Za-z0-9_-]{32}$/);
    expect(name("SELECT 1")).toBe(first);
    expect(name("SELECT 2")).not.toBe(first);
    expect(name("SELECT 3")).toMatch(/^s_/);
    expect(name("SELECT 4")).toBeUndefined();
    // Texts named before the limit was reached keep their names.
    expect(name("SELECT 1")).toBe(first);
    // Another namer (another process) derives the same name from the same text.
    expect(statementNamer(3)("SELECT 1")).toBe(first);
  });
});

describe.skipIf(!usesPostgres)("prepared statements on PostgreSQL", () => {
  if (!usesPostgres) console.warn(POSTGRES_SKIP_MESSAGE);

  it("Prisma's queries and raw statements are prepared once per connection and answer as before", async () => {
    const database = await createPostgresDatabase();
    // One connection, so the session whose prepared statements are listed is the one that ran the queries.
    const db = await openDatabase({ dataDir: "", databaseUrl: database.url }, { poolSize: 1 });
    try {
      await db.prisma.monetizationDecision.create({ data: { machineId: "41", optedIn: true, signer: "0x41", timestamp: 41n, updatedAt: new Date() } });
      for (let i = 0; i < 3; i++) {
        expect(await db.prisma.monetizationDecision.findUnique({ where: { deployment_machineId: { deployment: "v1", machineId: "41" } } })).toMatchObject({ machineId: "41", signer: "0x41" });
        expect(await db.statement<{ n: number }>("SELECT count(*)::int AS n FROM monetization_decision WHERE machine_id = $1", ["41"])).toEqual([{ n: 1 }]);
      }
      const prepared = await db.statement<{ name: string; statement: string }>("SELECT name, statement FROM pg_prepared_statements", []);
      const names = prepared.map((row) => row.name);
      expect(new Set(names).size).toBe(names.length);
      expect(prepared.filter((row) => row.statement.includes("SELECT count(*)::int AS n FROM monetization_decision"))).toHaveLength(1);
      // Prisma's findUnique, prepared once although it ran three times.
      expect(prepared.filter((row) => /^SELECT .*monetization_decision/i.test(row.statement) && !row.statement.includes("count(*)"))).toHaveLength(1);
      expect(names.every((name) => name.startsWith("s_"))).toBe(true);
    } finally {
      await db.close();
      await database.drop();
    }
  });

  it("later executions on a connection, built from the columns its first Describe gave, answer as the first", async () => {
    const database = await createPostgresDatabase();
    const db = await openDatabase({ dataDir: "", databaseUrl: database.url }, { poolSize: 1 });
    const typed = "SELECT $1::int AS n, $2::text AS t, to_timestamp(0) AS at, NULL::int AS none, true AS yes, 1.5::float8 AS f";
    try {
      for (let i = 0; i < 3; i++) {
        expect(await db.statement(typed, [i, `v${i}`])).toEqual([{ n: i, t: `v${i}`, at: new Date(0), none: null, yes: true, f: 1.5 }]);
        expect(await db.statement("SELECT g AS n FROM generate_series(1, $1::int) g", [i])).toEqual(Array.from({ length: i }, (_, k) => ({ n: k + 1 })));
        // No result columns (no RowDescription): nothing kept, each execution described again.
        expect(await db.statement("CREATE TEMP TABLE IF NOT EXISTS t_described (n int)", [])).toEqual([]);
        // A failing execution fails as before (its connection is discarded), and the next one answers.
        await expect(db.statement("SELECT 1 / $1::int AS q", [0])).rejects.toThrow(/division by zero/);
        expect(await db.statement("SELECT 1 / $1::int AS q", [1])).toEqual([{ q: 1 }]);
      }
    } finally {
      await db.close();
      await database.drop();
    }
  });

  it("later executions, their result set up from what the first built (parsers, empty row), answer as pg's own path", async () => {
    const database = await createPostgresDatabase();
    const db = await openDatabase({ dataDir: "", databaseUrl: database.url }, { poolSize: 1 });
    const plain = new pg.Client({ connectionString: database.url });
    await plain.connect();
    // Every kind of column the platform's statements answer: timestamps, numerics, JSON, arrays, bytea, nulls, and a
    // name given twice (the later column wins in a row object).
    const text = `SELECT $1::int AS n, $2::text AS t, to_timestamp($1::int) AS at, ($1::int * 1.25)::numeric(10, 2) AS amount,
        ($1::bigint << 40) AS big, json_build_object('k', $2::text, 'at', to_timestamp(0)) AS doc, jsonb_build_array($1::int, NULL) AS docb,
        ARRAY[$2::text, NULL] AS texts, decode('00ff', 'hex') AS bytes, NULLIF($1::int, 1) AS maybe, NULL::timestamptz AS never,
        $1::int % 2 = 0 AS even, 'first' AS dup, 'second' AS dup, '2026-11-27'::date AS day
      FROM generate_series(1, $1::int + 1)`;
    // pg's own Result, counted: the pool's executions after the first on its connection set no result up again.
    const Result = createRequire(import.meta.url)("pg/lib/result.js") as { prototype: { addFields(fields: unknown[]): void } };
    const addFields = Result.prototype.addFields;
    let setUps = 0;
    Result.prototype.addFields = function (this: unknown, fields: unknown[]) {
      setUps++;
      return addFields.call(this, fields);
    };
    try {
      for (let i = 0; i < 4; i++) {
        const values = [i, i % 2 === 0 ? `v${i}` : null];
        const before = setUps;
        const rows = await db.statement<Record<string, unknown>>(text, values);
        expect(setUps - before).toBe(i === 0 ? 1 : 0);
        // pg's own path: a fresh Describe and a fresh result for every execution.
        const expected = (await plain.query(text, values)).rows;
        expect(rows).toEqual(expected);
        expect(rows).toHaveLength(i + 1);
        for (const [k, row] of rows.entries()) {
          expect(Object.keys(row)).toEqual(Object.keys(expected[k]!));
          expect(row.at).toBeInstanceOf(Date);
          expect(row.bytes).toBeInstanceOf(Buffer);
        }
        // Rows of two executions share no object: a caller's change to one row never reaches another execution's.
        const again = await db.statement<Record<string, unknown>>(text, values);
        again[0]!.n = -1;
        expect((await db.statement<Record<string, unknown>>(text, values))[0]!.n).toBe(i);
      }
    } finally {
      Result.prototype.addFields = addFields;
      await plain.end();
      await db.close();
      await database.drop();
    }
  });
});
