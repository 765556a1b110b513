/**
 * Names for PostgreSQL prepared statements, so that each pooled connection parses a statement once and then only
 * binds and executes it. Unnamed, every query sends its text in a Parse message and PostgreSQL parses and analyses
 * it again before planning; prepared, that is done once per connection, and PostgreSQL may keep a generic plan. The
 * platform's statements are a fixed set (Prisma's compiled queries, the heartbeat's CTE), so unnamed they cost the
 * database, which shares the machine's cores with the platform, that work on every request.
 *
 * The name is derived from the statement's text (a hash), so the same text always gets the same name and two texts
 * never share one (pg refuses a name reused with another text). The number of named texts is bounded per process
 * (`limit`): each named text can become one prepared statement on every pooled connection, held by the server for
 * the connection's life, and statements whose text varies without bound (an IN list of varying length) must not
 * grow that set forever. Texts beyond the bound run unnamed.
 */
import { createHash } from "node:crypto";

export const PREPARED_STATEMENT_LIMIT = 500;

export type StatementNamer = (text: string) => string | undefined;

export function statementNamer(limit = PREPARED_STATEMENT_LIMIT): StatementNamer {
  const names = new Map<string, string>();
  return (text) => {
    let name = names.get(text);
    if (name === undefined) {
      if (names.size >= limit) return undefined;
      name = `s_${createHash("sha256").update(text).digest("base64url").slice(0, 32)}`;
      names.set(text, name);
    }
    return name;
  };
}
