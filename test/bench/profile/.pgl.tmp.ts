import "reflect-metadata";
import { openDatabase } from "../../../subgraphs/shared/db/index.js";
import { PGlite } from "@electric-sql/pglite";
const db = await openDatabase({ dataDir: "/tmp/unused" }, { inMemory: true });
// reach the PGlite instance behind Prisma's adapter
const pglite: PGlite = (db.prisma as any)._engineConfig?.adapter?.client ?? (globalThis as any).__pg;
console.log("pglite found:", !!pglite);
await db.statement("CREATE TABLE IF NOT EXISTS bench_t (id text primary key, n int, at timestamptz, j jsonb)", []);
const N = 3000;
async function viaPrisma(i: number) {
  await db.transaction(async (sql) => {
    await sql("INSERT INTO bench_t (id, n, at, j) VALUES ($1, $2, $3, $4) ON CONFLICT (id) DO UPDATE SET n = bench_t.n + 1", [`p${i % 100}`, i, new Date(), JSON.stringify({ a: i })]);
    await sql("SELECT id, n, at, j FROM bench_t WHERE id = $1 FOR UPDATE", [`p${i % 100}`]);
  });
}
async function direct(i: number) {
  await pglite.transaction(async (tx) => {
    await tx.query("INSERT INTO bench_t (id, n, at, j) VALUES ($1, $2, $3, $4) ON CONFLICT (id) DO UPDATE SET n = bench_t.n + 1", [`d${i % 100}`, i, new Date(), JSON.stringify({ a: i })]);
    await tx.query("SELECT id, n, at, j FROM bench_t WHERE id = $1 FOR UPDATE", [`d${i % 100}`]);
  });
}
for (const round of [1, 2, 3]) {
  for (const [name, f] of [["prisma", viaPrisma], ["direct", direct]] as const) {
    const c0 = process.cpuUsage(); const t0 = performance.now();
    for (let i = 0; i < N; i++) await f(i);
    const dt = performance.now() - t0; const c = process.cpuUsage(c0);
    console.log(round, name, `${(dt * 1000 / N).toFixed(0)} us wall, ${((c.user + c.system) / N).toFixed(0)} us cpu per tx`);
  }
}
await db.close();
