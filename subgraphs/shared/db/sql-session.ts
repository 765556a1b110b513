/**
 * One database connection seen as plain SQL, for the migration runner: session-level advisory locks and explicit
 * BEGIN/COMMIT only work when every statement goes through the same connection, which a Prisma client (a pool) does
 * not promise.
 */
import type { PGlite } from "@electric-sql/pglite";
import pg from "pg";
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
 * pg's query for a named statement, made without pg's copy of a config object: `client.query({ name, text, values })`
 * copies the config through its property descriptors on every call (about 1 us of the 15 us pg spends per statement);
 * a query given as text is not copied, and the name is set after. The pool runs it as it runs a config object.
 */
class NamedQuery extends pg.Query {
  constructor(name: string | undefined, text: string, values: unknown[]) {
    super(text, values);
    (this as { name?: string }).name = name;
  }
}

/** The same statement through a Prisma client or interactive transaction (PGlite, and tests' injected failures). */
export function prismaStatement(db: { $queryRawUnsafe<T = unknown>(query: string, ...values: any[]): Promise<T> }): SqlStatement {
  return <Row>(text: string, values: readonly unknown[]) => db.$queryRawUnsafe<Row[]>(text, ...values);
}
