/**
 * A PostgreSQL driver adapter the schema engine can introspect through.
 *
 * The engine reads catalog columns of PostgreSQL's internal one-byte type `"char"` (OID 18: pg_class.relkind,
 * pg_constraint.contype, ...), which @prisma/adapter-pg 7.10 does not map and rejects as UnsupportedNativeDataType.
 * pg already returns those values as strings, so reporting the column as `text` (OID 25) is all it takes.
 */
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";

const PG_CHAR_OID = 18;
const PG_TEXT_OID = 25;

export function postgresSchemaEngineAdapter(url: string): { adapter: PrismaPg; close(): Promise<void> } {
  const pool = new pg.Pool({ connectionString: url, max: 2, connectionTimeoutMillis: 5_000 });
  // The adapter only calls the one-argument promise form of `query`.
  const query = pool.query.bind(pool) as (config: pg.QueryConfig) => Promise<pg.QueryResult>;
  pool.query = (async (config: pg.QueryConfig) => {
    const result = await query(config);
    for (const field of result.fields ?? []) {
      if (field.dataTypeID === PG_CHAR_OID) field.dataTypeID = PG_TEXT_OID;
    }
    return result;
  }) as typeof pool.query;
  return { adapter: new PrismaPg(pool), close: () => pool.end() };
}
