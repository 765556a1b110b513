/**
 * An interactive transaction of plain SQL statements (`Database.transaction`): the hot writes of the markets API run
 * their few fixed statements in one, instead of Prisma's model queries (each of which costs several hundred
 * microseconds of Prisma's pipeline before the driver sees it).
 *
 * On PostgreSQL the transaction is one pooled connection between BEGIN and COMMIT (BEGIN sent with the first
 * statement, in its round trip), its statements named (prepared) like the rest of the platform's (statement-names.ts)
 * and run as the pool's statements are (sql-session.ts `NamedQuery`: no per-call copy of the query config, no
 * Describe after a statement's first execution on a connection). It keeps the rules Prisma's interactive transactions
 * keep: waiting for a connection is bounded by the pool's connect timeout, and a transaction still running after
 * `timeoutMs` (DB_TRANSACTION_TIMEOUT_MS) is ended: its connection is closed, so the server rolls it back and any
 * statement it is waiting on fails, and it answers as a store outage (the client retries), having written nothing.
 * Every transaction is observed in `db_transaction_duration_seconds` with its outcome.
 *
 * On PGlite (one embedded connection) the same work runs under the lock PGlite takes for every query and
 * transaction, Prisma's adapter's included: it queues with every other transaction and query, as a Prisma
 * interactive transaction would, without Prisma's pipeline per statement, its BEGIN sent with its first statement
 * (pglite-statements.ts `PgliteTransaction`). It keeps the same two limits: a transaction that cannot start within
 * `maxWaitMs` (DB_TRANSACTION_MAX_WAIT_MS), or runs past `timeoutMs`, is rolled back and answers as a store outage,
 * having written nothing.
 *
 * Values: statements see the same decoding on both (timestamptz as Date, json and jsonb parsed, arrays as arrays);
 * bigint columns differ (pg answers strings, PGlite numbers), so statements cast them to text where they read them.
 */
import type { PGlite } from "@electric-sql/pglite";
import type pg from "pg";
import { StoreUnavailableError } from "../errors.js";
import { dbTransactionDuration, secondsSince } from "../observability/metrics.js";
import { PgliteTransaction, type PgliteStatements } from "./pglite-statements.js";
import { clientStatement, type SqlStatement } from "./sql-session.js";
import type { StatementNamer } from "./statement-names.js";

/** Runs `work` in one transaction: committed when it resolves, rolled back when it throws. */
export type SqlTransaction = <T>(work: (sql: SqlStatement) => Promise<T>) => Promise<T>;

class TransactionExpired extends Error {
  constructor(timeoutMs: number) {
    super(`the transaction ran past its timeout of ${timeoutMs} ms and was rolled back`);
  }
}

export function poolTransaction(pool: pg.Pool, name: StatementNamer, timeoutMs: number): SqlTransaction {
  return async <T>(work: (sql: SqlStatement) => Promise<T>): Promise<T> => {
    const started = process.hrtime.bigint();
    let outcome = "rollback";
    let client: pg.PoolClient;
    try {
      client = await pool.connect();
    } catch (error) {
      dbTransactionDuration.observe({ database: "postgres", outcome }, secondsSince(started));
      throw error;
    }
    let released = false;
    let expired: TransactionExpired | undefined;
    const release = (error?: Error) => {
      if (released) return;
      released = true;
      client.release(error);
    };
    // Closing the connection is the one way to end a transaction whose statement is still running (a lock wait).
    const timer = setTimeout(() => {
      expired = new TransactionExpired(timeoutMs);
      release(expired);
    }, timeoutMs);
    // BEGIN goes out with the transaction's first statement, in the same round trip (clientStatement); a transaction
    // that sends no statement sends neither BEGIN nor COMMIT.
    let begun = false;
    const sql: SqlStatement = async <Row>(text: string, values: readonly unknown[]) => {
      if (expired) throw new StoreUnavailableError(expired);
      const first = !begun;
      begun = true;
      return clientStatement<Row>(client, name(text), text, values, first);
    };
    try {
      const result = await work(sql);
      if (begun) await sql("COMMIT", []);
      outcome = "commit";
      return result;
    } catch (error) {
      if (begun && !expired && !released) {
        // A connection that cannot even roll back is broken: it is closed instead of going back to the pool.
        await client.query("ROLLBACK").catch((rollback: Error) => release(rollback));
      }
      throw expired ? new StoreUnavailableError(expired) : error;
    } finally {
      clearTimeout(timer);
      release();
      dbTransactionDuration.observe({ database: "postgres", outcome }, secondsSince(started));
    }
  };
}

class TransactionNotStarted extends Error {
  constructor(maxWaitMs: number) {
    super(`the transaction could not start within ${maxWaitMs} ms`);
  }
}

export function pgliteTransaction(db: Pick<PGlite, "_runExclusiveTransaction">, statements: PgliteStatements, maxWaitMs: number, timeoutMs: number): SqlTransaction {
  return async <T>(work: (sql: SqlStatement) => Promise<T>): Promise<T> => {
    const started = process.hrtime.bigint();
    let outcome = "rollback";
    let abandoned = false;
    let waitTimer: NodeJS.Timeout | undefined;
    const notStarted = new Promise<never>((_, reject) => {
      waitTimer = setTimeout(() => {
        abandoned = true;
        reject(new StoreUnavailableError(new TransactionNotStarted(maxWaitMs)));
      }, maxWaitMs);
    });
    const run = db._runExclusiveTransaction(async () => {
      clearTimeout(waitTimer);
      // Its caller was answered already: the transaction ends at once, having run nothing.
      if (abandoned) return undefined;
      let expired: TransactionExpired | undefined;
      const timer = setTimeout(() => (expired = new TransactionExpired(timeoutMs)), timeoutMs);
      const tx = new PgliteTransaction(statements);
      const sql: SqlStatement = async <Row>(text: string, values: readonly unknown[]) => {
        if (expired) throw new StoreUnavailableError(expired);
        return tx.statement<Row>(text, values);
      };
      try {
        const result = await work(sql);
        // Past its timeout the work is rolled back even when it finished: as with Prisma, it did not commit in time.
        if (expired) throw new StoreUnavailableError(expired);
        await tx.commit();
        return result;
      } catch (error) {
        await tx.rollback();
        throw error;
      } finally {
        clearTimeout(timer);
      }
    });
    try {
      const result = (await Promise.race([run, notStarted])) as T;
      outcome = "commit";
      return result;
    } finally {
      clearTimeout(waitTimer);
      // An abandoned transaction still settles later; nobody waits for it.
      if (abandoned) run.catch(() => undefined);
      dbTransactionDuration.observe({ database: "pglite", outcome }, secondsSince(started));
    }
  };
}
