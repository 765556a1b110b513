/**
 * The platform's statements on PGlite as named prepared statements, the way the pg pool runs them on PostgreSQL
 * (sql-session.ts `NamedQuery`), and its transactions with as few calls into the database as the pool's.
 *
 * PGlite's own `query` sends every statement as the unnamed statement, in six calls into the WebAssembly (Parse,
 * Describe, Bind, Describe, Execute, Sync), so PostgreSQL parses and plans it every time. Here a statement's text is
 * parsed once per database (Parse and Describe of a statement named `pgl_<n>`: its parameters' types and its result's
 * columns), and each execution is one call of Bind, Execute and Sync, whose rows are built with the columns kept from
 * that Describe. Values are serialized and rows parsed with the database's own serializers and parsers, as `query`
 * does, after `pgliteValue` has given each value pg's meaning.
 *
 * PGlite's own `transaction` runs BEGIN and COMMIT through `exec`: two calls into the database each, and a parse of
 * their results with a copy of the whole parser table. Here (`PgliteTransaction`) BEGIN goes in the first call of the
 * transaction's first statement, as the pool sends it on PostgreSQL, and COMMIT or ROLLBACK is one call.
 *
 * PostgreSQL refuses to execute a prepared statement whose result columns changed since it was prepared (a table
 * altered at run time): such a statement is forgotten and closed, and fails that once. Past {@link MAX_PREPARED}
 * texts (the `limit`), a new text runs as the unnamed statement, prepared again at every execution.
 */
import { protocol, type PGlite } from "@electric-sql/pglite";
import type { SqlStatement } from "./sql-session.js";

const { serialize } = protocol;

/** Distinct statement texts kept prepared per database; the platform's own are a few hundred. */
export const MAX_PREPARED = 2_000;

type Parser = (text: string, typeId: number) => unknown;
type Serializer = (value: unknown) => string;

interface Prepared {
  /** `pgl_<n>`, or "" for the unnamed statement. */
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

  /**
   * Runs one statement; with `begin`, BEGIN goes first in the same call. The caller holds PGlite's lock for
   * transactions (it runs inside a transaction, or under `_runExclusiveTransaction`); the protocol calls themselves
   * take PGlite's query lock, as `query` does.
   */
  async run<Row>(text: string, values: readonly unknown[], syncToFs: boolean, begin = false): Promise<Row[]> {
    let statement = this.prepared.get(text);
    if (!statement) {
      // A simple query (BEGIN) drops the unnamed statement, so BEGIN goes before the Parse, in its call.
      statement = await this.prepare(text, this.prepared.size < this.limit, begin);
      begin = false;
    }
    const bound = values.map((value, i) => this.serialize(value, statement.paramTypes[i]!));
    const parts = [serialize.bind({ statement: statement.name, values: bound }), serialize.execute({}), serialize.sync()];
    if (begin) parts.unshift(BEGIN);
    let messages: Message[];
    try {
      messages = await this.send(Buffer.concat(parts), syncToFs);
    } catch (error) {
      // "cached plan must not change result type": the statement is prepared again on its next use.
      if ((error as { code?: string }).code === "0A000" && statement.name) await this.forget(text, statement);
      throw error;
    }
    return statement.columns ? rowsOf<Row>(messages, statement.columns) : [];
  }

  /** COMMIT or ROLLBACK: one call. */
  async end(command: "COMMIT" | "ROLLBACK"): Promise<void> {
    await this.send(serialize.query(command), command === "COMMIT");
  }

  /** Parses and describes `text`: kept under a name of its own, or as the unnamed statement for one execution. */
  private async prepare(text: string, keep: boolean, begin: boolean): Promise<Prepared> {
    const name = keep ? `pgl_${++this.count}` : "";
    const parts = [serialize.parse({ name, text }), serialize.describe({ type: "S", name }), serialize.sync()];
    if (begin) parts.unshift(BEGIN);
    const messages = await this.send(Buffer.concat(parts), false);
    let paramTypes: number[] = [];
    let columns: Prepared["columns"] = null;
    for (const message of messages as Array<Message & { dataTypeIDs?: number[]; fields?: Array<{ name: string; dataTypeID: number }> }>) {
      if (message.name === "parameterDescription") paramTypes = message.dataTypeIDs!;
      else if (message.name === "rowDescription") {
        columns = message.fields!.map((field) => ({ name: field.name, typeId: field.dataTypeID, parse: this.db.parsers[field.dataTypeID] as Parser | undefined }));
      }
    }
    const prepared = { name, paramTypes, columns };
    if (keep) this.prepared.set(text, prepared);
    return prepared;
  }

  private async forget(text: string, statement: Prepared): Promise<void> {
    this.prepared.delete(text);
    const request = Buffer.concat([serialize.close({ type: "S", name: statement.name }), serialize.sync()]);
    await this.send(request, false).catch(() => undefined);
  }

  /**
   * One call into the database under PGlite's query lock, as `query` makes them, answering its messages (PGlite
   * parses its output as it comes; `execProtocolStream`, unlike `execProtocol`, keeps no copy of the raw bytes). A
   * closed (or closing) database is refused first, with PGlite's own error, as `query` refuses it: its WebAssembly
   * must not be called again.
   */
  private async send(request: Uint8Array, syncToFs: boolean): Promise<Message[]> {
    return this.db._runExclusiveQuery(async () => {
      await this.db._checkReady();
      return (await this.db.execProtocolStream(request, { syncToFs })) as Message[];
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
    return db._runExclusiveTransaction(() => statements.run<Row>(text, mapped, true));
  };
}

/**
 * One transaction's statements, for a holder of PGlite's transaction lock: BEGIN goes with the first statement, and
 * a transaction that ran none sends nothing at its end. Statements issued at once still run after the BEGIN: the
 * first one's first call (its Parse, or its Bind) joins PGlite's query lock, which serves in call order, before any
 * later statement's (`test/db/pglite-statements.test.ts` holds PGlite to that).
 */
export class PgliteTransaction {
  private begun = false;

  constructor(private readonly statements: PgliteStatements) {}

  readonly statement: SqlStatement = async <Row>(text: string, values: readonly unknown[]) => {
    const begin = !this.begun;
    this.begun = true;
    return this.statements.run<Row>(text, values.map(pgliteValue), false, begin);
  };

  async commit(): Promise<void> {
    if (this.begun) await this.statements.end("COMMIT");
  }

  /** Ends the transaction after a failure; its own failure (a closed database) leaves the first one to be thrown. */
  async rollback(): Promise<void> {
    if (this.begun) await this.statements.end("ROLLBACK").catch(() => undefined);
  }
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
const BEGIN = serialize.query("BEGIN");

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
