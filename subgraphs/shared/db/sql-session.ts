/**
 * One database connection seen as plain SQL, for the migration runner: session-level advisory locks and explicit
 * BEGIN/COMMIT only work when every statement goes through the same connection, which a Prisma client (a pool) does
 * not promise.
 */
import type { PGlite } from "@electric-sql/pglite";
import pg from "pg";
// @ts-expect-error pg/lib/utils.js (exported by pg) has no type declarations; prepareValue is pg's own value mapper.
import pgUtils from "pg/lib/utils.js";
import type { StatementNamer } from "./statement-names.js";

export interface SqlSession {
  query<Row>(sql: string, params?: unknown[]): Promise<Row[]>;
  /** Runs a script of one or more statements, without parameters. */
  exec(script: string): Promise<void>;
}

/** PGlite is one single-user connection, so the instance itself is the session. */
export function pgliteSession(db: PGlite): SqlSession {
  return {
    async query<Row>(sql: string, params: unknown[] = []) {
      return (await db.query<Row>(sql, params)).rows;
    },
    async exec(script: string) {
      await db.exec(script);
    },
  };
}

export function pgClientSession(client: pg.ClientBase): SqlSession {
  return {
    async query<Row>(sql: string, params: unknown[] = []) {
      return (await client.query(sql, params)).rows as Row[];
    },
    async exec(script: string) {
      // Without parameters pg uses the simple query protocol, which accepts several statements in one string.
      await client.query(script);
    },
  };
}

/**
 * One parameterised statement (`$1`, `$2`, ... placeholders), each its own transaction, answering its rows. On
 * PostgreSQL it runs straight on the pool Prisma's adapter uses (Database.statement): the markets heartbeat, the
 * platform's hottest write, skips Prisma's raw-query pipeline that way (docs/performance.md "Heartbeats").
 */
export type SqlStatement = <Row>(text: string, values: readonly unknown[]) => Promise<Row[]>;

export function poolStatement(pool: pg.Pool, name: StatementNamer = () => undefined): SqlStatement {
  return async <Row>(text: string, values: readonly unknown[]) => {
    const result = (await pool.query(new NamedQuery(name(text), text, values as unknown[]))) as unknown as pg.QueryResult;
    return result.rows as Row[];
  };
}

/**
 * One statement on a connection the caller holds (an interactive transaction's), as a NamedQuery: the same
 * savings as the pool's statements (poolStatement). With `begin`, BEGIN is sent ahead of it in the same batch of
 * messages, so a transaction's first statement costs one round trip, not two (NamedQuery).
 */
export function clientStatement<Row>(client: pg.ClientBase, name: string | undefined, text: string, values: readonly unknown[], begin = false): Promise<Row[]> {
  const query = new NamedQuery(name, text, values as unknown[]);
  query.beginFirst = begin;
  return new Promise((resolve, reject) => {
    client.query(query as unknown as pg.QueryConfig, (error: Error | null, result: pg.QueryResult) => {
      if (error) reject(error);
      else resolve(result.rows as Row[]);
    });
  });
}

/**
 * What pg built for a named statement's result from its first Describe on a connection: the columns, a type parser per
 * column and the empty row every row is copied from (pg/lib/result.js `addFields`). pg's Result only reads the three
 * after building them, so later executions of the statement on that connection reuse them as they are.
 */
interface DescribedResult {
  fields: unknown[];
  parsers: unknown[] | undefined;
  emptyRow: object | null;
}

/** The described results of each named statement per connection. */
const describedResults = new WeakMap<object, Map<string, DescribedResult>>();

interface PgConnection {
  parsedStatements: Record<string, string>;
  submittedNamedStatements: Record<string, string>;
  parse(config: object): void;
  execute(config: object): void;
  bind(config: object): void;
  close(config: object): void;
  sync(): void;
}

/** pg's Result members used here (pg/lib/result.js). */
interface PgResultInternals {
  fields: unknown[];
  _parsers: unknown[] | undefined;
  _prebuiltEmptyResultObject: object | null;
}

/** pg's Query members used here (pg/lib/query.js): the prepared path is pg's own, less the Describe. */
interface PgQueryInternals {
  name?: string;
  portal: string;
  values: unknown[];
  binary?: boolean;
  rows?: number;
  types?: unknown;
  callback?: unknown;
  _result: PgResultInternals;
  _accumulateRows: unknown;
  prepare(connection: PgConnection): void;
  handleRowDescription(message: { fields: unknown[] }): void;
  handleCommandComplete(message: unknown, connection: PgConnection): void;
  handleError(error: unknown, connection: PgConnection): void;
  _getRows(connection: PgConnection, rows: number | undefined): void;
}

/**
 * pg's query for a named statement, with three costs of pg's per-call path left out:
 *
 * - the copy of a config object: `client.query({ name, text, values })` copies the config through its property
 *   descriptors on every call; a query given as text is not copied, and the name is set after;
 * - the Describe: pg asks PostgreSQL to describe the result's columns on every execution and builds the result from
 *   the answer. A prepared statement's columns cannot change on its connection (PostgreSQL refuses to execute it when
 *   they would: "cached plan must not change result type"), so the first description on a connection is kept and later
 *   executions there bind and execute only;
 * - the result's set-up from the columns: pg looks up a type parser per column and builds an empty row on every
 *   execution (`Result.addFields`); what the first execution on a connection built is kept with its columns and
 *   given to later executions' results. The statement is run without custom `types`, so every parser comes from its
 *   client's table (the pool's, the same for every connection: timestamp-parser.ts).
 *
 * The pool runs it as it runs a config object (errors, release). About 2 and 1 us of the 16 to 18 us pg spent per
 * statement in process, and PostgreSQL's Describe.
 *
 * `beginFirst` puts BEGIN (Parse, Bind and Execute of the unnamed statement, no Sync) ahead of the statement's own
 * messages: PostgreSQL runs the two in order and answers with one ReadyForQuery, so a transaction's BEGIN costs no
 * round trip of its own, and the statement runs inside the transaction exactly as after a separate BEGIN. Until
 * BEGIN's CommandComplete the statement's name is held back from pg's client, which would otherwise take BEGIN's
 * ParseComplete for the statement's; BEGIN's CommandComplete is not part of the result; when BEGIN itself fails, the
 * statement's Parse never ran and is forgotten as pg forgets a failed one.
 */
class NamedQuery extends pg.Query {
  private describedOn: PgConnection | undefined;
  beginFirst = false;
  private beginPending = false;
  private heldName: string | undefined;

  constructor(name: string | undefined, text: string, values: unknown[]) {
    super(text, values);
    (this as unknown as PgQueryInternals).name = name;
  }

  prepare(connection: PgConnection): void {
    const self = this as unknown as PgQueryInternals;
    if (!this.beginFirst) return this.prepareStatement(connection);
    connection.parse({ text: "BEGIN", name: "" });
    connection.bind({ portal: "", statement: "", values: [], valueMapper: pgUtils.prepareValue });
    connection.execute({ portal: "" });
    this.prepareStatement(connection);
    this.heldName = self.name;
    self.name = undefined;
    this.beginPending = true;
  }

  handleCommandComplete(message: unknown, connection: PgConnection): void {
    if (this.beginPending) {
      this.beginPending = false;
      (this as unknown as PgQueryInternals).name = this.heldName;
      return;
    }
    (pg.Query.prototype as unknown as PgQueryInternals).handleCommandComplete.call(this, message, connection);
  }

  handleError(error: unknown, connection: PgConnection): void {
    if (this.beginPending) {
      this.beginPending = false;
      const name = this.heldName;
      (this as unknown as PgQueryInternals).name = name;
      if (name !== undefined && connection.parsedStatements[name] === undefined) delete connection.submittedNamedStatements[name];
    }
    (pg.Query.prototype as unknown as PgQueryInternals).handleError.call(this, error, connection);
  }

  private prepareStatement(connection: PgConnection): void {
    const self = this as unknown as PgQueryInternals;
    const described = self.name !== undefined && connection.parsedStatements[self.name] !== undefined ? describedResults.get(connection)?.get(self.name) : undefined;
    if (described === undefined) {
      this.describedOn = connection;
      return (pg.Query.prototype as unknown as PgQueryInternals).prepare.call(this, connection);
    }
    try {
      connection.bind({ portal: self.portal, statement: self.name, values: self.values, binary: self.binary, valueMapper: pgUtils.prepareValue });
    } catch (error) {
      // As pg's own prepare: the statement is closed and the error is the query's.
      connection.close({ type: "S", name: self.name });
      connection.sync();
      self.handleError(error, connection);
      return;
    }
    // What pg's handleRowDescription does for a fresh query's result, with the kept parsers and empty row.
    const result = self._result;
    result.fields = described.fields;
    result._parsers = described.parsers;
    result._prebuiltEmptyResultObject = described.emptyRow;
    self._accumulateRows = self.callback || !this.listeners("row").length;
    self._getRows(connection, self.rows);
  }

  handleRowDescription(message: { fields: unknown[] }): void {
    (pg.Query.prototype as unknown as PgQueryInternals).handleRowDescription.call(this, message);
    const self = this as unknown as PgQueryInternals;
    if (this.describedOn === undefined || self.name === undefined || self.types !== undefined) return;
    let results = describedResults.get(this.describedOn);
    if (results === undefined) describedResults.set(this.describedOn, (results = new Map()));
    const result = self._result;
    results.set(self.name, { fields: result.fields, parsers: result._parsers, emptyRow: result._prebuiltEmptyResultObject });
  }
}

/** The same statement through a Prisma client or interactive transaction (tests' injected failures). */
export function prismaStatement(db: { $queryRawUnsafe<T = unknown>(query: string, ...values: any[]): Promise<T> }): SqlStatement {
  return <Row>(text: string, values: readonly unknown[]) => db.$queryRawUnsafe<Row[]>(text, ...values);
}
