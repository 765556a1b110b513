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
 * savings as the pool's statements (poolStatement).
 */
export function clientStatement<Row>(client: pg.ClientBase, name: string | undefined, text: string, values: readonly unknown[]): Promise<Row[]> {
  return new Promise((resolve, reject) => {
    client.query(new NamedQuery(name, text, values as unknown[]) as unknown as pg.QueryConfig, (error: Error | null, result: pg.QueryResult) => {
      if (error) reject(error);
      else resolve(result.rows as Row[]);
    });
  });
}

/** The result columns of each named statement per connection, from its first Describe there. */
const describedColumns = new WeakMap<object, Map<string, unknown[]>>();

interface PgConnection {
  parsedStatements: Record<string, string>;
  bind(config: object): void;
  close(config: object): void;
  sync(): void;
}

/** pg's Query members used here (pg/lib/query.js): the prepared path is pg's own, less the Describe. */
interface PgQueryInternals {
  name?: string;
  portal: string;
  values: unknown[];
  binary?: boolean;
  rows?: number;
  prepare(connection: PgConnection): void;
  handleRowDescription(message: { fields: unknown[] }): void;
  handleError(error: unknown, connection: PgConnection): void;
  _getRows(connection: PgConnection, rows: number | undefined): void;
}

/**
 * pg's query for a named statement, with two costs of pg's per-call path left out:
 *
 * - the copy of a config object: `client.query({ name, text, values })` copies the config through its property
 *   descriptors on every call; a query given as text is not copied, and the name is set after;
 * - the Describe: pg asks PostgreSQL to describe the result's columns on every execution and builds the result from
 *   the answer. A prepared statement's columns cannot change on its connection (PostgreSQL refuses to execute it when
 *   they would: "cached plan must not change result type"), so the first description on a connection is kept and later
 *   executions there bind and execute only, their result built from the kept columns.
 *
 * The pool runs it as it runs a config object (errors, release). About 2 and 1 us of the 16 to 18 us pg spent per
 * statement in process, and PostgreSQL's Describe.
 */
class NamedQuery extends pg.Query {
  private describedOn: PgConnection | undefined;

  constructor(name: string | undefined, text: string, values: unknown[]) {
    super(text, values);
    (this as unknown as PgQueryInternals).name = name;
  }

  prepare(connection: PgConnection): void {
    const self = this as unknown as PgQueryInternals;
    const columns = self.name !== undefined && connection.parsedStatements[self.name] !== undefined ? describedColumns.get(connection)?.get(self.name) : undefined;
    if (columns === undefined) {
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
    (pg.Query.prototype as unknown as PgQueryInternals).handleRowDescription.call(this, { fields: columns });
    self._getRows(connection, self.rows);
  }

  handleRowDescription(message: { fields: unknown[] }): void {
    (pg.Query.prototype as unknown as PgQueryInternals).handleRowDescription.call(this, message);
    const name = (this as unknown as PgQueryInternals).name;
    if (this.describedOn === undefined || name === undefined) return;
    let columns = describedColumns.get(this.describedOn);
    if (columns === undefined) describedColumns.set(this.describedOn, (columns = new Map()));
    columns.set(name, message.fields);
  }
}

/** The same statement through a Prisma client or interactive transaction (PGlite, and tests' injected failures). */
export function prismaStatement(db: { $queryRawUnsafe<T = unknown>(query: string, ...values: any[]): Promise<T> }): SqlStatement {
  return <Row>(text: string, values: readonly unknown[]) => db.$queryRawUnsafe<Row[]>(text, ...values);
}
