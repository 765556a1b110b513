/**
 * Challenge issuance's floor: a bare node:http handler doing what any Node server issuing a chip challenge from
 * PostgreSQL must do, and nothing else. It reads and parses the JSON body, draws the nonce (the platform's pooled
 * CSPRNG and SHA-256), stores the challenge within the open-challenge caps with the platform's own one-statement fast
 * path (`IssuanceCapsRepository` on a `pg` pool run as the platform runs its statements, `poolStatement`), and answers
 * 201 with the challenge's JSON.
 *
 * What it leaves out, and the platform pays beyond it: the route's checks (onboarding token, headers, closed body, rate
 * limits), the machine's context from the chain (the head read per issuance and the per-block cache), the shim, the
 * GraphQL execution, the service's clock and validation, request logs and metrics.
 *
 * Usage: tsx test/bench/issuance-floor-server.ts <port> <database-url> <challenges-file>, the file holding one
 * challenge the platform issued per machine ID (`{"<machineId>": {...}}`): the floor answers the same members.
 */
import { hash, randomUUID } from "node:crypto";
import http from "node:http";
import { readFileSync } from "node:fs";
import pg from "pg";
import { pooledRandomBytes } from "../../subgraphs/shared/crypto/random-pool.js";
import { DEFAULT_POOL_SIZE } from "../../subgraphs/shared/db/client.js";
import type { Database } from "../../subgraphs/shared/db/index.js";
import type { ChipChallenge as Challenge } from "../../subgraphs/verify/challenge.type.js";
import { poolStatement } from "../../subgraphs/shared/db/sql-session.js";
import { statementNamer } from "../../subgraphs/shared/db/statement-names.js";
import { POOL_TYPES } from "../../subgraphs/shared/db/timestamp-parser.js";
import { IssuanceCapsRepository } from "../../subgraphs/verify/issuance-caps.repository.js";

const [port, databaseUrl, challengesFile] = process.argv.slice(2);
const templates = JSON.parse(readFileSync(challengesFile!, "utf8")) as Record<string, Challenge>;
const pool = new pg.Pool({ connectionString: databaseUrl, max: DEFAULT_POOL_SIZE, keepAlive: true, types: POOL_TYPES });
pool.on("error", () => undefined);
// The fast path is all this floor runs (caps it never reaches); the recount and slow paths would need Prisma.
const repository = new IssuanceCapsRepository({ statement: poolStatement(pool, statementNamer()) } as unknown as Database);
const caps = { perMachine: 1_000_000_000, total: 1_000_000_000 };
const TTL_SECONDS = 300n;

async function issue(body: string): Promise<Buffer | null> {
  const { machineId } = JSON.parse(body) as { machineId?: unknown };
  const template = typeof machineId === "string" ? templates[machineId] : undefined;
  if (!template) return null;
  const bytes = pooledRandomBytes(32);
  const nowMs = Date.now();
  const expiresAt = BigInt(Math.floor(nowMs / 1000)) + TTL_SECONDS;
  const challenge = { ...template, expiresAt: expiresAt.toString(), nonce: `0x${bytes.toString("hex")}` };
  const stored = await repository.insertWithinCaps(
    {
      id: randomUUID(), nonceHash: hash("sha256", bytes, "hex"), machineId: template.machineId, machineDid: template.machineDid,
      didController: template.didController, chainId: template.chainId, profile: template.profile, protocol: template.protocol,
      verifier: template.verifier, issuedAt: new Date(nowMs), expiresAt,
    },
    caps,
    expiresAt - TTL_SECONDS,
  );
  return stored ? Buffer.from(JSON.stringify(challenge)) : null;
}

http
  .createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      issue(Buffer.concat(chunks).toString("utf8")).then(
        (answer) => {
          if (!answer) {
            res.writeHead(400);
            res.end();
            return;
          }
          res.writeHead(201, { "content-type": "application/json; charset=utf-8", "cache-control": "no-store", "content-length": answer.length });
          res.end(answer);
        },
        () => {
          res.writeHead(500);
          res.end();
        },
      );
    });
  })
  .listen(Number(port), "127.0.0.1", () => console.error("ready"));
