/**
 * Identical reads share one execution (Database.read).
 *
 * A read given the same statement text and values as one already running on this process waits for that one to
 * finish, then runs with every other identical read that arrived meanwhile as one execution, whose rows all of them
 * get. That execution is sent after each of its readers arrived, so each reader sees every change committed before it
 * asked, as its own statement would: no reader gets rows read before it arrived. Under load a popular page (the public
 * machines list's first page) costs one statement per round trip to the database instead of one per request; a read
 * with no twin in flight runs at once, as on its own.
 *
 * An embedded database (PGlite) runs each statement on this thread, so a read finishes before the next request is
 * even parsed and no twin would ever find it running. With `gather`, a read with no twin running waits instead for
 * the end of the event loop's current phase (`setImmediate`), and the identical reads of requests that arrived in the
 * same turn go with it.
 *
 * Only for statements whose answer depends on nothing but their text and values (no session settings, no caller):
 * two callers with the same text and values get the same rows.
 *
 * The readers of one execution share its row objects, so the rows are frozen: code that changes a row fails loudly
 * instead of changing another request's answer. Each reader gets an array of its own. A failed execution fails every
 * reader it served with the same error.
 */
import type { SqlStatement } from "./sql-session.js";

interface Reader {
  resolve(rows: unknown[]): void;
  reject(error: unknown): void;
}

/** One text and values' reads: whether one is running, and the readers waiting to go in the next execution. */
interface Flight {
  next: Reader[] | undefined;
}

export function sharedReads(run: SqlStatement, { gather = false }: { gather?: boolean } = {}): SqlStatement {
  /** Per statement text (the texts are fixed, so few), per values' key: the reads running now. */
  const flights = new Map<string, Map<string, Flight>>();

  async function execute<Row>(text: string, values: readonly unknown[]): Promise<Row[]> {
    const rows = await run<Row>(text, values);
    for (const row of rows) Object.freeze(row);
    return rows;
  }

  /**
   * Runs the flight's waiting readers as one execution, then, one execution at a time, the readers that arrived while
   * the one before ran, until none is left; then the flight ends.
   */
  function drain(text: string, values: readonly unknown[], byValues: Map<string, Flight>, key: string, flight: Flight): void {
    const readers = flight.next;
    if (!readers) {
      byValues.delete(key);
      if (byValues.size === 0) flights.delete(text);
      return;
    }
    flight.next = undefined;
    const next = () => drain(text, values, byValues, key, flight);
    execute(text, values).then(
      (rows) => {
        readers[0]!.resolve(rows);
        for (let i = 1; i < readers.length; i++) readers[i]!.resolve(rows.slice());
        next();
      },
      (error: unknown) => {
        for (const reader of readers) reader.reject(error);
        next();
      },
    );
  }

  return <Row>(text: string, values: readonly unknown[]): Promise<Row[]> => {
    const key = valuesKey(values);
    if (key === undefined) return execute<Row>(text, values);
    let byValues = flights.get(text);
    if (!byValues) flights.set(text, (byValues = new Map()));
    const running = byValues.get(key);
    const flight: Flight = running ?? { next: undefined };
    const answer = new Promise<Row[]>((resolve, reject) => (flight.next ??= []).push({ resolve: resolve as Reader["resolve"], reject }));
    if (!running) {
      byValues.set(key, flight);
      const start = () => drain(text, values, byValues, key, flight);
      if (gather) setImmediate(start);
      else start();
    }
    return answer;
  };
}

/**
 * The values as one string when each is a string, a finite number, a boolean or null (the JSON text keeps `2` and
 * `"2"` apart); undefined for anything else (a Date, a Buffer, an array), which then runs on its own.
 */
export function valuesKey(values: readonly unknown[]): string | undefined {
  for (const value of values) {
    const type = typeof value;
    if (value !== null && type !== "string" && type !== "boolean" && !(type === "number" && Number.isFinite(value))) return undefined;
  }
  return JSON.stringify(values);
}
