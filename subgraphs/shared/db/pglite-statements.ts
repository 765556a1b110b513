/**
 * The platform's statements on PGlite as named prepared statements, the way the pg pool runs them on PostgreSQL
 * (sql-session.ts `NamedQuery`).
 *
 * PGlite's own `query` sends every statement as the unnamed statement, in six calls into the WebAssembly (Parse,
 * Describe, Bind, Describe, Execute, Sync), so PostgreSQL parses and plans it every time. Here a statement's text is
 * parsed once per database (Parse and Describe of a statement named `pgl_<n>`: its parameters' types and its result's
 * columns), and each execution is one call of Bind, Execute and Sync, whose rows are built with the columns kept from
 * that Describe. Values are serialized and rows parsed with the database's own serializers and parsers, as `query`
 * does, after `pgliteValue` has given each value pg's meaning.
 *
 * PostgreSQL refuses to execute a prepared statement whose result columns changed since it was prepared (a table
 * altered at run time): such a statement is forgotten and closed, and fails that once. Past {@link MAX_PREPARED}
 * texts (the `limit`), a new text runs through `query`, unprepared.
 */
import { protocol, type PGlite, type Transaction } from "@electric-sql/pglite";
import type { SqlStatement } from "./sql-session.js";

const { serialize } = protocol;

/** Distinct statement texts kept prepared per database; the platform's own are a few hundred. */
export const MAX_PREPARED = 2_000;

type Parser = (text: string, typeId: number) => unknown;
type Serializer = (value: unknown) => string;

interface Prepared {
  name: string;
  paramTypes: number[];
  /** Null for a statement that answers no rows (NoData). */
  columns: Array<{ name: string; typeId: number; parse: Parser | undefined }> | null;
}

interface Message {
  name: string;
}

type Serializers = Record<number, Serializer>;

export class PgliteStatements {
  private readonly prepared = new Map<string, Prepared>();
  private count = 0;

  constructor(
    private readonly db: PGlite,
    /** How many texts may be kept prepared. */
    private readonly limit = MAX_PREPARED,
  ) {}

  /** Whether `text` has, or may get, a prepared statement; otherwise the caller runs it through `query`. */
  accepts(text: string): boolean {
    return this.prepared.has(text) || this.prepared.size < this.limit;
  }

  /**
   * Runs one statement. The caller holds PGlite's lock for transactions (it runs inside PGlite's `transaction`, or
   * under `_runExclusiveTransaction`); the protocol calls themselves take PGlite's query lock, as `query` does.
   */
  async run<Row>(text: string, values: readonly unknown[], syncToFs: boolean): Promise<Row[]> {
    const statement = this.prepared.get(text) ?? (await this.prepare(text));
    const bound = values.map((value, i) => this.serialize(value, statement.paramTypes[i]!));
    const request = Buffer.concat([serialize.bind({ statement: statement.name, values: bound }), serialize.execute({}), serialize.sync()]);
    let messages: Message[];
    try {
      messages = (await this.send(request, syncToFs)).messages as Message[];
    } catch (error) {
      // "cached plan must not change result type": the statement is prepared again on its next use.
      if ((error as { code?: string }).code === "0A000") await this.forget(text, statement);
      throw error;
    }
    return statement.columns ? rowsOf<Row>(messages, statement.columns) : [];
  }

  private async prepare(text: string): Promise<Prepared> {
    const name = `pgl_${++this.count}`;
    const request = Buffer.concat([serialize.parse({ name, text }), serialize.describe({ type: "S", name }), serialize.sync()]);
    const { messages } = await this.send(request, false);
    let paramTypes: number[] = [];
    let columns: Prepared["columns"] = null;
    for (const message of messages as Array<Message & { dataTypeIDs?: number[]; fields?: Array<{ name: string; dataTypeID: number }> }>) {
      if (message.name === "parameterDescription") paramTypes = message.dataTypeIDs!;
      else if (message.name === "rowDescription") {
        columns = message.fields!.map((field) => ({ name: field.name, typeId: field.dataTypeID, parse: this.db.parsers[field.dataTypeID] as Parser | undefined }));
      }
    }
    const prepared = { name, paramTypes, columns };
    this.prepared.set(text, prepared);
    return prepared;
  }

  private async forget(text: string, statement: Prepared): Promise<void> {
    this.prepared.delete(text);
    const request = Buffer.concat([serialize.close({ type: "S", name: statement.name }), serialize.sync()]);
    await this.send(request, false).catch(() => undefined);
  }

  /**
   * One call into the database under PGlite's query lock, as `query` makes them. A closed (or closing) database is
   * refused first, with PGlite's own error, as `query` refuses it: its WebAssembly must not be called again.
   */
  private async send(request: Uint8Array, syncToFs: boolean) {
    return this.db._runExclusiveQuery(async () => {
      await this.db._checkReady();
      return this.db.execProtocol(request, { syncToFs });
    });
  }

  private serialize(value: unknown, typeId: number): string | null {
    if (value === null || value === undefined) return null;
    const serializer = TEXT_SERIALIZERS[typeId] ?? (this.db.serializers[typeId] as Serializer | undefined);
    return serializer ? serializer(value) : String(value);
  }
}

/**
 * One statement as its own transaction on the embedded database. PGlite takes one lock for every query and
 * transaction (Prisma's adapter runs its transactions with PGlite's `transaction`), so a statement waits for any
 * transaction in progress and never runs inside one.
 */
export function pgliteStatement(db: PGlite, statements: PgliteStatements): SqlStatement {
  return async <Row>(text: string, values: readonly unknown[]) => {
    const mapped = values.map(pgliteValue);
    if (!statements.accepts(text)) return (await db.query<Row>(text, mapped, QUERY_OPTIONS)).rows;
    return db._runExclusiveTransaction(() => statements.run<Row>(text, mapped, true));
  };
}

/** One statement in a PGlite transaction `tx` (whose holder has PGlite's lock). */
export function pgliteTransactionStatement(tx: Transaction, statements: PgliteStatements): SqlStatement {
  return async <Row>(text: string, values: readonly unknown[]) => {
    const mapped = values.map(pgliteValue);
    if (!statements.accepts(text)) return (await tx.query<Row>(text, mapped, QUERY_OPTIONS)).rows;
    return statements.run<Row>(text, mapped, false);
  };
}

/**
 * Values as pg sends them. PGlite serializes a value by its parameter's type and refuses what pg accepts (a Date or a
 * boolean for a text parameter), so values are first given pg's meaning: a Date its instant (ISO 8601), an object its
 * JSON, and for a text parameter any value its text. Arrays, bytes, numbers and booleans go to PGlite's serializers.
 */
function pgliteValue(value: unknown): unknown {
  if (value === undefined || value === null) return null;
  if (value instanceof Date) return value.toISOString();
  if (typeof value === "object" && !Array.isArray(value) && !(value instanceof Uint8Array)) return JSON.stringify(value);
  return value;
}

const textOf = (value: unknown) => String(value);
/** text, varchar and bpchar parameters take any value's text, as in pg. */
const TEXT_SERIALIZERS: Serializers = { 25: textOf, 1043: textOf, 1042: textOf };
const QUERY_OPTIONS = { serializers: TEXT_SERIALIZERS };

function rowsOf<Row>(messages: Message[], columns: NonNullable<Prepared["columns"]>): Row[] {
  const rows: Row[] = [];
  for (const message of messages) {
    if (message.name !== "dataRow") continue;
    const fields = (message as Message & { fields: Array<string | null> }).fields;
    const row: Record<string, unknown> = {};
    for (let i = 0; i < columns.length; i++) {
      const { name, typeId, parse } = columns[i]!;
      const text = fields[i];
      row[name] = text === null || text === undefined ? null : parse ? parse(text, typeId) : text;
    }
    rows.push(row as Row);
  }
  return rows;
}
