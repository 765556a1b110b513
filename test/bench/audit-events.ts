/**
 * GET /api/v1/audit-events with a million events: p50/p99 per page of 100 for each filter the route
 * offers, through the REST shim (role `all` in its own process), beside a bare node:http server answering the first
 * page's JSON (the same-run baseline). The events are inserted with one SQL statement before the platform starts:
 * 1,000 machines, 28 kinds, three actor types, one event every 2.5 s over ~29 days. On PostgreSQL when DATABASE_URL
 * is set (a throw-away database), else on PGlite in a throw-away data directory.
 *
 *   AUDIT_BENCH_EVENTS (default 1,000,000), BENCH_ROUNDS, BENCH_SECONDS; one connection by default (the latency of a page, not a queue; AUDIT_BENCH_CONNECTIONS).
 */
import autocannon from "autocannon";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { openDatabase, Prisma } from "../../subgraphs/shared/db/index.js";
import { AuditService } from "../../subgraphs/markets/audit/audit.service.js";
import { createPostgresDatabase } from "../support/db.js";
import { freePort, startRole, type RoleProcess } from "../support/processes.js";
import { autocannonSample, median, type Sample } from "./stats.js";

const EVENTS = Number(process.env.AUDIT_BENCH_EVENTS ?? 1_000_000);
const STORAGE_ITERATIONS = 300;
const CONNECTIONS = Number(process.env.AUDIT_BENCH_CONNECTIONS ?? 1);

const KINDS = [
  "runtime-endpoint.upserted", "runtime-endpoint.deleted", "machine-agent.enrolled", "machine-agent.heartbeat",
  "graph.node.created", "graph.node.updated", "graph.node.deleted", "graph.edge.created", "graph.edge.updated",
  "graph.edge.deleted", "task.created", "task.discovered", "task.resolved", "task.executed", "task.execution-failed",
  "task.handoff-recorded", "policy.created", "policy.updated", "market.order.created", "market.payment.intent-created",
  "market.payment.proof-recorded", "market.order.executed", "market.order.confirmed", "market.order.disputed",
  "market.payment.escrow-held", "market.payment.released", "market.payment.refunded", "machine.updated",
];

const machineOf = (n: number) => `mach_${n.toString(16).padStart(24, "0")}`;

/** One INSERT ... SELECT generate_series: the event g belongs to machine g % 1000, kind g % 28, at start + 2.5 g s. */
const INSERT_SQL = `
INSERT INTO market_audit_event (kind, machine_id, actor_type, actor_id, occurred_at, data)
SELECT (ARRAY[${KINDS.map((k) => `'${k}'`).join(",")}])[1 + (g % ${KINDS.length})],
       'mach_' || lpad(to_hex(g % 1000), 24, '0'),
       CASE WHEN g % 10 = 0 THEN 'machine-agent' WHEN g % 10 = 1 THEN 'agent' ELSE 'platform' END,
       CASE WHEN g % 10 = 0 THEN 'agent_' || (g % 1000) WHEN g % 10 = 1 THEN 'pair_' || (g % 50) ELSE 'api' END,
       timestamptz '2026-10-01T00:00:00Z' + g * interval '2.5 seconds',
       jsonb_build_object('entityType', 'graph-node', 'entityId', 'node_' || g, 'after', jsonb_build_object('status', 'active', 'n', g))
FROM generate_series(1, $1::int) AS g`;

async function load(url: string, seconds: number): Promise<Sample> {
  return autocannonSample(await autocannon({ url, connections: CONNECTIONS, duration: seconds }));
}

async function seed(dataDir: string, databaseUrl: string | undefined): Promise<number> {
  const db = await openDatabase({ dataDir, databaseUrl });
  try {
    const started = performance.now();
    await db.prisma.$executeRawUnsafe(INSERT_SQL, EVENTS);
    await db.prisma.$executeRawUnsafe("ANALYZE market_audit_event");
    return performance.now() - started;
  } finally {
    await db.close();
  }
}

/** The same pages through AuditService in this process (no HTTP, no GraphQL): the database's share of a page. */
async function storageLayer(dataDir: string, databaseUrl: string | undefined, queries: Array<[string, string]>): Promise<void> {
  const db = await openDatabase({ dataDir, databaseUrl });
  try {
    const service = new AuditService(db, () => {});
    console.log(`  in process, AuditService.list (the SQL and row mapping only), ${STORAGE_ITERATIONS} pages each:`);
    for (const [name, url] of queries) {
      const query = new URL(url).searchParams;
      const filter = Object.fromEntries(["machineId", "kind", "actorType", "actorId", "since", "until"].map((k) => [k, query.get(k)]));
      const page = { limit: Number(query.get("limit") ?? 100), cursor: query.get("cursor") };
      const times: number[] = [];
      for (let i = 0; i < STORAGE_ITERATIONS; i++) {
        const started = performance.now();
        await service.list(filter, page);
        times.push(performance.now() - started);
      }
      times.sort((a, b) => a - b);
      const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))]!.toFixed(2);
      // The database's own execution time (EXPLAIN ANALYZE), which CPU contention in this process does not inflate.
      const { statement } = service.statement(filter, page);
      const plans = (await db.prisma.$queryRaw<Array<{ "QUERY PLAN": unknown }>>(Prisma.sql`EXPLAIN (ANALYZE, FORMAT JSON) ${statement}`))[0]!["QUERY PLAN"];
      const plan = (typeof plans === "string" ? JSON.parse(plans) : plans) as Array<{ "Execution Time": number; Plan: unknown }>;
      const indexes = [...JSON.stringify(plan[0]!.Plan).matchAll(/"Index Name":"([^"]+)"/g)].map((m) => m[1]!.replace("market_audit_event_", ""));
      console.log(`    ${name.padEnd(30)} p50 ${at(0.5)} ms   p99 ${at(0.99)} ms   SQL execution ${plan[0]!["Execution Time"].toFixed(2)} ms via ${indexes.join(", ") || "no index"}`);
    }
  } finally {
    await db.close();
  }
}

export async function benchAuditEvents(
  dataDir: string,
  rounds: number,
  seconds: number,
  platformEnv: (dataDir: string, ports: number[]) => Record<string, string>,
  processes: RoleProcess[],
): Promise<void> {
  const database = process.env.DATABASE_URL ? await createPostgresDatabase() : null;
  const dir = path.join(dataDir, "audit");
  try {
    console.error(`audit events: inserting ${EVENTS.toLocaleString("en")} events (${database ? "PostgreSQL" : "PGlite"}) ...`);
    const seedMs = await seed(dir, database?.url);
    const ports = await Promise.all(Array.from({ length: 6 }, freePort));
    const platform = await startRole(["all"], {
      ...platformEnv(dir, ports),
      ...(database ? { DATABASE_URL: database.url } : {}),
      RATE_LIMIT_MARKETS_PER_IP: "1000000000",
    });
    processes.push(platform);
    const base = `http://127.0.0.1:${ports[1]}/api/v1/audit-events`;
    const half = Math.floor(EVENTS / 2);
    const halfAt = new Date(Date.parse("2026-10-01T00:00:00Z") + half * 2500).toISOString();
    const middle = Buffer.from(JSON.stringify([halfAt, String(half)])).toString("base64url");
    const m = machineOf(7);
    const queries: Array<[string, string]> = [
      ["first page, no filter", `${base}?limit=100`],
      ["page at the middle (cursor)", `${base}?limit=100&cursor=${middle}`],
      ["machineId", `${base}?machineId=${m}&limit=100`],
      ["machineId, middle cursor", `${base}?machineId=${m}&limit=100&cursor=${middle}`],
      ["kind", `${base}?kind=task.executed&limit=100`],
      ["machineId + kind", `${base}?machineId=${m}&kind=${KINDS[7]}&limit=100`],
      ["actorType + actorId", `${base}?actorType=machine-agent&actorId=agent_10&limit=100`],
      ["time window (1 day, mid-log)", `${base}?since=2026-10-15T00:00:00Z&until=2026-10-16T00:00:00Z&limit=100`],
      ["machineId + time window", `${base}?machineId=${m}&since=2026-10-15T00:00:00Z&until=2026-10-16T00:00:00Z&limit=100`],
    ];
    for (const [name, url] of queries) {
      const response = await fetch(url);
      const page = (await response.json()) as { items?: unknown[] };
      if (response.status !== 200 || !Array.isArray(page.items)) throw new Error(`${name}: ${response.status}`);
    }
    const bodyFile = path.join(dataDir, "bench-audit.json");
    await writeFile(bodyFile, Buffer.from(await (await fetch(queries[0]![1])).arrayBuffer()));
    const barePort = await freePort();
    const bare = await startRole([], {}, 30_000, ["test/bench/bare-server.ts", String(barePort), bodyFile]);
    processes.push(bare);
    const bareUrl = `http://127.0.0.1:${barePort}/api/v1/audit-events`;
    await load(bareUrl, 1);
    for (const [, url] of queries) await load(url, 1);
    const baseline: Sample[] = [];
    const samples = new Map<string, Sample[]>(queries.map(([name]) => [name, []]));
    for (let round = 1; round <= rounds; round++) {
      console.error(`round ${round}/${rounds}: audit events ...`);
      baseline.push(await load(bareUrl, seconds));
      for (const [name, url] of queries) samples.get(name)!.push(await load(url, seconds));
    }
    const line = (name: string, s: Sample[]) => {
      const errors = s.reduce((sum, x) => sum + x.non2xx, 0);
      const p50 = median(s.map((x) => x.p50));
      const p99 = median(s.map((x) => x.p99));
      console.log(`  ${name.padEnd(32)} p50 ${String(p50).padStart(3)} ms   p99 ${String(p99).padStart(3)} ms   ${median(s.map((x) => x.rps)).toFixed(0).padStart(6)} req/s${errors ? `   non-2xx ${errors}` : ""}`);
      return p99;
    };
    console.log(
      `\nGET /api/v1/audit-events, ${EVENTS.toLocaleString("en")} events on ${database ? "PostgreSQL" : "PGlite"} (inserted in ${(seedMs / 1000).toFixed(1)} s), pages of 100, ${CONNECTIONS} connections, ${rounds} x ${seconds}s rounds (medians)`,
    );
    line("bare node:http (baseline)", baseline);
    let worst = 0;
    for (const [name] of queries) worst = Math.max(worst, line(name, samples.get(name)!));
    console.log(`  worst p99 ${worst} ms  (target < 20 ms per page)`);
    await platform.stop();
    await bare.stop();
    await storageLayer(dir, database?.url, queries);
  } finally {
    await database?.drop();
  }
}
