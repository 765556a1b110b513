/**
 * A floor for a database-backed route: a bare node:http handler that runs one SQL statement per request on a `pg`
 * pool exactly as the platform runs its statements (`poolStatement`: a named prepared statement, no Describe after its
 * first execution on a connection; a pool of the platform's default size and its type parsers), then answers the same bytes as the route
 * with the same headers. What it costs is what any Node server answering that route from
 * PostgreSQL pays at least: the HTTP exchange, the statement's round trip and pg's parsing of its rows; the platform's
 * figure beyond it is the stack (shim, GraphQL, services, serialisation, logs and metrics).
 *
 * Usage: tsx test/bench/statement-server.ts <port> <body-file> <database-url> <statement-json>, the statement as
 * `{"text": "...", "values": [...]}`. Answers 500 when the statement fails, so a bench sees it in its non-2xx count.
 */
import http from "node:http";
import { readFileSync } from "node:fs";
import pg from "pg";
import { DEFAULT_POOL_SIZE } from "../../subgraphs/shared/db/client.js";
import { poolStatement } from "../../subgraphs/shared/db/sql-session.js";
import { statementNamer } from "../../subgraphs/shared/db/statement-names.js";
import { POOL_TYPES } from "../../subgraphs/shared/db/timestamp-parser.js";

const [port, bodyFile, databaseUrl, statementJson] = process.argv.slice(2);
const body = readFileSync(bodyFile!);
const { text, values } = JSON.parse(statementJson!) as { text: string; values: unknown[] };
const pool = new pg.Pool({ connectionString: databaseUrl, max: DEFAULT_POOL_SIZE, keepAlive: true, types: POOL_TYPES });
pool.on("error", () => undefined);
const statement = poolStatement(pool, statementNamer());
const run = () => statement(text, values);

// One execution before listening: a statement that does not run is a setup error, not a slow floor.
await run();
http
  .createServer((_req, res) => {
    run().then(
      () => {
        res.writeHead(200, {
          "content-type": "application/json; charset=utf-8",
          "cache-control": "no-store",
          "content-length": body.length,
        });
        res.end(body);
      },
      () => {
        res.writeHead(500);
        res.end();
      },
    );
  })
  .listen(Number(port), "127.0.0.1", () => console.error("ready"));
