/**
 * Identical reads share one execution (Database.read, shared-reads.ts), on the real databases: a read with no twin
 * running runs at once; identical reads arriving while one runs share the next execution; a reader never gets rows
 * read before it arrived; other values, or values that are not plain, run on their own; rows are frozen and arrays
 * are each reader's own; a failed execution fails exactly the readers it served.
 *
 * Each execution draws a number from a sequence, so readers that got the same number shared one execution.
 */
import { describe, expect, it } from "vitest";
import { valuesKey } from "../../subgraphs/shared/db/shared-reads.js";
import { databaseTargets, withTestDatabase } from "../support/db.js";

const RUN = "SELECT nextval('shared_reads_runs')::int AS run, (SELECT count(*)::int FROM shared_reads_probe) AS n, $1::text AS v";
const SLOW = "SELECT nextval('shared_reads_runs')::int AS run, (SELECT count(*)::int FROM shared_reads_probe) AS n, (SELECT 1 FROM pg_sleep($1::float8)) AS slept";

interface Run {
  run: number;
  n: number;
}

describe.each(databaseTargets())("shared reads on %s", (target) => {
  const testDb = withTestDatabase(target);
  const setUp = async () => {
    await testDb.db.statement("CREATE SEQUENCE IF NOT EXISTS shared_reads_runs", []);
    await testDb.db.statement("CREATE TABLE IF NOT EXISTS shared_reads_probe (id int PRIMARY KEY)", []);
  };

  it("identical reads share executions: on PostgreSQL a read alone runs at once and the reads arriving while it runs share the next; on PGlite the reads of one turn share one", async () => {
    await setUp();
    const reads = Array.from({ length: 10 }, () => testDb.db.read<Run>(RUN, ["a"]));
    const runs = (await Promise.all(reads)).map((rows) => rows[0]!.run);
    if (target === "postgres") expect(runs.slice(1)).toEqual(Array(9).fill(runs[0]! + 1));
    else expect(runs).toEqual(Array(10).fill(runs[0]));
    // Nothing is left waiting: the next read runs on its own, once.
    const [after] = await testDb.db.read<Run>(RUN, ["a"]);
    expect(after!.run).toBe(runs[9]! + 1);
  });

  it("reads with other values, or with values that are not plain, each run on their own", async () => {
    await setUp();
    const other = await Promise.all(["a", "b", "c"].map((v) => testDb.db.read<Run>(RUN, [v])));
    expect(new Set(other.map((rows) => rows[0]!.run)).size).toBe(3);
    const at = new Date(0);
    const dated = await Promise.all([1, 2, 3].map(() => testDb.db.read<Run>(RUN, [at])));
    expect(new Set(dated.map((rows) => rows[0]!.run)).size).toBe(3);
  });

  it("a reader that arrives after a change committed sees it, though an identical read from before still runs", async () => {
    await setUp();
    await testDb.db.statement("DELETE FROM shared_reads_probe", []);
    let firstDone = false;
    const first = testDb.db.read<Run>(SLOW, [0.3]).then((rows) => ((firstDone = true), rows));
    // Let the first read reach the database before the change.
    await new Promise((resolve) => setTimeout(resolve, 50));
    await testDb.db.statement("INSERT INTO shared_reads_probe (id) VALUES (1)", []);
    // PostgreSQL runs the change on another connection while the first read sleeps; PGlite's one connection runs
    // them in turn, so there the first read has finished by now.
    if (target === "postgres") expect(firstDone).toBe(false);
    const [later, alsoLater] = await Promise.all([testDb.db.read<Run>(SLOW, [0.3]), testDb.db.read<Run>(SLOW, [0.3])]);
    const [before] = await first;
    expect(before!.n).toBe(0);
    expect(later![0]!.n).toBe(1);
    expect(alsoLater![0]!.n).toBe(1);
    expect(later![0]!.run).toBeGreaterThan(before!.run);
    if (target === "postgres") expect(alsoLater![0]!.run).toBe(later![0]!.run);
  });

  it("rows are frozen and each reader's array is its own", async () => {
    await setUp();
    // The second and third share an execution on both databases.
    const [one, two] = (await Promise.all([testDb.db.read<Run>(RUN, ["f"]), testDb.db.read<Run>(RUN, ["f"]), testDb.db.read<Run>(RUN, ["f"])])).slice(1);
    expect(one![0]).toBe(two![0]);
    expect(Object.isFrozen(one![0])).toBe(true);
    expect(() => {
      (one![0] as { n: number }).n = 5;
    }).toThrow(TypeError);
    one!.push({ run: 0, n: 0 });
    expect(two).toHaveLength(1);
    expect(two![0]!.n).toBe(one![0]!.n);
  });

  it("a failed execution fails every reader it served and no other; later reads run", async () => {
    await setUp();
    const failing = "SELECT nextval('shared_reads_runs')::int AS run, 1 / $1::int AS x";
    const outcomes = await Promise.allSettled([0, 0, 1, 0].map((v) => testDb.db.read<{ x: number }>(failing, [v])));
    expect(outcomes.map((o) => o.status)).toEqual(["rejected", "rejected", "fulfilled", "rejected"]);
    expect((outcomes[2] as PromiseFulfilledResult<{ x: number }[]>).value[0]!.x).toBe(1);
    const reasons = outcomes.map((o) => (o as PromiseRejectedResult).reason as unknown);
    // The second and fourth shared an execution: one error for both.
    expect(reasons[1]).toBe(reasons[3]);
    expect(String(reasons[0])).toMatch(/division by zero/);
    const [ok] = await testDb.db.read<{ x: number }>(failing, [1]);
    expect(ok!.x).toBe(1);
    await expect(testDb.db.read(failing, [0])).rejects.toThrow(/division by zero/);
  });
});

describe("the values' key", () => {
  it("keeps numbers and their text apart and refuses values that are not plain", () => {
    expect(valuesKey([2])).not.toBe(valuesKey(["2"]));
    expect(valuesKey([null, true, "x", 1.5])).toBe('[null,true,"x",1.5]');
    for (const value of [new Date(0), Buffer.from("a"), [1], { a: 1 }, undefined, Number.NaN, Infinity, 1n]) {
      expect(valuesKey([1, value])).toBeUndefined();
    }
  });
});
