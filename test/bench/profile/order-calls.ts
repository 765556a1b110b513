/**
 * Warm platform CPU per call of each step of a market order journey, one call at a time (no queueing):
 * `npx tsx test/bench/profile/order-calls.ts [calls]` (DATABASE_URL: PostgreSQL, a throw-away database is created
 * beside it; unset: PGlite). Phases, each `calls` iterations after a warm-up journey phase: create alone, create +
 * intent, the whole journey (create, intent, execute through the demo provider), and the stack's list read; the
 * serving process's CPU (user + system, /proc) per iteration, so intent = (create + intent) - create and execute =
 * journey - (create + intent). To compare two checkouts, run this script from each, alternately.
 */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { readFileSync } from "node:fs";
import { createPostgresDatabase } from "../../support/db.js";
import { preparePlatform } from "../markets-orders.js";

const calls = Number(process.argv[2] ?? 300);
const dataDir = await mkdtemp(path.join(os.tmpdir(), "order-calls-"));
const database = process.env.DATABASE_URL ? await createPostgresDatabase() : null;
const platform = await preparePlatform(dataDir, { DATABASE_URL: database?.url ?? "" });
const pid = platform.child.child.pid!;

function cpuMs(): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10; // utime + stime, clock ticks of 10 ms
}

async function call(url: string, method: string, body: unknown, headers: Record<string, string>) {
  const response = await fetch(url, { method, headers: { "content-type": "application/json", ...headers }, body: body === undefined ? undefined : JSON.stringify(body) });
  const answer = await response.json();
  if (response.status >= 300) throw new Error(`${method} ${url}: ${response.status} ${JSON.stringify(answer)}`);
  return answer;
}

try {
  const { api, machineId, tokens } = platform;
  const headers = { "x-agent-pairing-token": tokens[0]! };
  const search = (await call(`${api}/market/search`, "POST", { machineId, skillKey: "oracle.price-feed" }, headers)).item;
  const order = { machineId, searchId: search.searchId, quoteId: search.quotes[0].id, input: { pair: "ETH/USD" } };
  const phases = ["warm-up journey", "create", "create + intent", "journey", "list read"] as const;
  const perCall: Record<string, number> = {};
  for (const phase of phases) {
    const before = cpuMs();
    const started = performance.now();
    for (let i = 0; i < calls; i++) {
      if (phase === "list read") {
        await call(`${api}/machines?limit=1`, "GET", undefined, {});
        continue;
      }
      const created = (await call(`${api}/market/orders`, "POST", order, headers)).item;
      if (phase === "create") continue;
      await call(`${api}/market/orders/${created.id}/payment-intent`, "POST", {}, headers);
      if (phase === "create + intent") continue;
      await call(`${api}/market/orders/${created.id}/execute`, "POST", undefined, headers);
    }
    perCall[phase] = (cpuMs() - before) / calls;
    const wall = (performance.now() - started) / calls;
    console.log(`  ${phase.padEnd(16)} platform CPU ${perCall[phase]!.toFixed(2)} ms per iteration, wall ${wall.toFixed(2)} ms`);
  }
  const intent = perCall["create + intent"]! - perCall.create!;
  const execute = perCall.journey! - perCall["create + intent"]!;
  console.log(`  so: create ${perCall.create!.toFixed(2)} ms, intent ${intent.toFixed(2)} ms, execute ${execute.toFixed(2)} ms; load ${os.loadavg()[0]!.toFixed(1)}`);
} finally {
  await platform.child.stop();
  await database?.drop();
  await rm(dataDir, { recursive: true, force: true });
}
