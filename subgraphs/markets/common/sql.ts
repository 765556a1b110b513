/**
 * The markets repositories' statements run in either kind of transaction: a Prisma interactive transaction (`write`,
 * most writes) or a plain SQL transaction (`sqlWrite`, the hot writes: Database.transaction). A repository function
 * that takes `MarketsSql` is written once, in SQL, and serves both; in a Prisma transaction its statements go
 * through Prisma's raw queries, in a SQL transaction straight to the connection.
 *
 * Values read come back alike from both, except numeric and bigint columns (pg answers strings, Prisma's raw queries
 * Decimal and BigInt): statements cast bigint to text, and rows with a Decimal field are normalised (`decimal`).
 */
import type { SqlStatement } from "../../shared/db/sql-session.js";
import { prismaStatement } from "../../shared/db/sql-session.js";
import { Prisma } from "../../shared/db/index.js";
import type { MarketsTx } from "./audit.repository.js";

export type { SqlStatement };

/** A Prisma interactive transaction (or client) or a SQL transaction's statement function. */
export type MarketsSql = MarketsTx | SqlStatement;

/** The statement function of `tx`. */
export function statementOf(tx: MarketsSql): SqlStatement {
  return typeof tx === "function" ? tx : prismaStatement(tx);
}

/** Runs a `Prisma.sql` statement (its `$n` text and values) in `tx`. */
export function query<Row>(tx: MarketsSql, statement: Prisma.Sql): Promise<Row[]> {
  return statementOf(tx)<Row>(statement.text, statement.values);
}

/** A numeric column's value (a string from pg, a Decimal from Prisma) as Prisma's Decimal, as model reads give it. */
export function decimal(value: unknown): Prisma.Decimal {
  return value instanceof Prisma.Decimal ? value : new Prisma.Decimal(String(value));
}

/** `snake_case` of a Prisma field name (the tables' @map names). */
export function column(field: string): string {
  return field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/** Field names by column name: the tables' columns are a fixed set, converted once each. */
const fieldNames = new Map<string, string>();

/** A row read with `SELECT *`: its columns under their Prisma field names. */
export function camelRow<T>(row: Record<string, unknown>): T {
  const out: Record<string, unknown> = {};
  for (const key in row) {
    let field = fieldNames.get(key);
    if (field === undefined) {
      field = key.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
      if (fieldNames.size < 10_000) fieldNames.set(key, field);
    }
    out[field] = row[key];
  }
  return out as T;
}
