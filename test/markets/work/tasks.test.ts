/**
 * Tasks through the REST shim (and GraphQL): the catalogue, search with quote TTL, and the task pipeline
 * create -> discover -> resolve -> execute for an external-handoff service (202), ROUTE_REQUIRED, state conflicts,
 * routes/outcomes/runs with the GET /runs filters, every change logged. Native execution against a real provider
 * is in task-execution.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { graphql, type TestPlatform } from "../../support/platform.js";
import { PLATFORM_START_TIMEOUT_MS, startMarketsPlatform } from "../helpers.js";
import { marketsCall } from "../../support/markets.js";
import { seedBoundMachine, sessionOf } from "../../support/machine-sessions.js";

let p: TestPlatform;
let machine: string;
const call = (method: string, path: string, body?: unknown) => marketsCall(p.markets, method, path, body);
const db = () => p.platform.database!;

beforeAll(async () => {
  p = await startMarketsPlatform();
  machine = (await seedBoundMachine(p)).id;
}, PLATFORM_START_TIMEOUT_MS);
afterAll(() => p?.close());

const CURATED = [
  "oracle.price-feed",
  "compute.marketplace",
  "storage.object",
  "data.location",
  "identity.proof-of-person",
  "device.control",
  "machine.commerce",
  "network.partner-console",
];

describe("catalogue", () => {
  it("lists the curated skills with the SkillSummary fields", async () => {
    const skills = await call("GET", "/market/skills");
    expect(skills.status).toBe(200);
    expect(skills.body.items.map((s: any) => s.key).sort()).toEqual([...CURATED].sort());
    for (const skill of skills.body.items) {
      expect(Object.keys(skill).sort()).toEqual(
        ["key", "providerKey", "label", "description", "serviceTypes", "operations", "executionMode", "integrationStatus"].sort(),
      );
      expect(["native", "external-handoff"]).toContain(skill.executionMode);
    }
  });

  it("lists services with the CatalogService fields, filtered and paged with an opaque cursor", async () => {
    const page1 = await call("GET", "/market/services?limit=3");
    expect(page1.status).toBe(200);
    expect(page1.body.items).toHaveLength(3);
    expect(typeof page1.body.nextCursor).toBe("string");
    const rest = await call("GET", `/market/services?limit=500&cursor=${page1.body.nextCursor}`);
    expect(rest.body.nextCursor).toBeUndefined();
    const all = [...page1.body.items, ...rest.body.items];
    expect(all).toHaveLength(CURATED.length);
    expect(new Set(all.map((s: any) => s.id)).size).toBe(CURATED.length);
    const native = (await call("GET", "/market/services?executionMode=native")).body.items;
    expect(native.map((s: any) => s.skillKey)).toEqual(["oracle.price-feed"]);
    for (const field of ["providerId", "providerLabel", "authType", "accessMode", "distribution", "maturity", "kind", "freshnessSeconds", "requiresHumanEnablement", "handoff", "metadata", "pricing", "payment"]) {
      expect(native[0]).toHaveProperty(field);
    }
    const one = await call("GET", `/market/services/${native[0].id}`);
    expect(one.body.item).toEqual(native[0]);
    expect((await call("GET", "/market/services/svc_nope")).status).toBe(404);
    expect((await call("GET", "/market/services?limit=0")).status).toBe(400);
    expect((await call("GET", "/market/services?cursor=%%%")).status).toBe(400);
  });
});

describe("POST /market/search", () => {
  it("ranks quotes (native first when both fit) with reasons and a short TTL, and stores the search", async () => {
    const response = await call("POST", "/market/search", { machineId: machine, operation: "get-price", capabilities: ["json"] });
    expect(response.status).toBe(200);
    const search = response.body.item;
    expect(search.searchId).toMatch(/^search_/);
    expect(search.quotes).toHaveLength(1);
    expect(search.quotes[0]).toMatchObject({ skillKey: "oracle.price-feed", executionMode: "native", operation: "get-price" });
    expect(search.quotes[0].reasons).toContain("supports operation get-price");
    const ttl = Date.parse(search.expiresAt) - Date.parse(search.createdAt);
    expect(ttl).toBe(p.config.marketsWork.quoteTtlSeconds * 1000);
    expect(await db().prisma.marketsSearch.findUnique({ where: { id: search.searchId } })).not.toBeNull();

    const broad = (await call("POST", "/market/search", { machineId: machine, maxResults: 50 })).body.item.quotes;
    expect(broad).toHaveLength(CURATED.length);
    const scores = broad.map((q: any) => q.score);
    expect([...scores].sort((a: number, b: number) => b - a)).toEqual(scores);
    expect(broad[0].executionMode).toBe("native");
    const nativeOnly = (await call("POST", "/market/search", { machineId: machine, nativeOnly: true })).body.item.quotes;
    expect(nativeOnly.every((q: any) => q.executionMode === "native")).toBe(true);
    const noHandoff = (await call("POST", "/market/search", { machineId: machine, allowHandoff: false, maxResults: 50 })).body.item.quotes;
    expect(noHandoff).toHaveLength(1);
    const cheap = (await call("POST", "/market/search", { machineId: machine, skillKey: "oracle.price-feed", budget: { amount: "0.001", currency: "USD" } })).body.item.quotes;
    expect(cheap).toEqual([]);
    const two = (await call("POST", "/market/search", { machineId: machine, maxResults: 2 })).body.item.quotes;
    expect(two).toHaveLength(2);
  });

  it("refuses bad input with VALIDATION_ERROR and inactive machines per global rule 1", async () => {
    const searches = await db().prisma.marketsSearch.count();
    for (const body of [{}, { machineId: machine, maxResults: 0 }, { machineId: machine, maxResults: 51 }, { machineId: machine, capabilities: "x" }, { machineId: machine, budget: { amount: "-1" } }]) {
      // With the machine's session, the body is read: each of these is refused for its values.
      const response = await marketsCall(p.markets, "POST", "/market/search", body, { authorization: `Bearer ${sessionOf(machine)}` });
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.error.code).toBe("VALIDATION_ERROR");
    }
    const blocked = (await seedBoundMachine(p, { status: "blocked" })).id;
    expect((await call("POST", "/market/search", { machineId: blocked })).body.error.code).toBe("MACHINE_NOT_ACTIVE");
    expect(await db().prisma.marketsSearch.count()).toBe(searches);
  });
});

async function auditKinds(taskId: string): Promise<string[]> {
  const rows = await db().prisma.marketAuditEvent.findMany({ where: { machineId: machine }, orderBy: { id: "asc" } });
  return rows.filter((r) => (r.data as any).entityId === taskId).map((r) => r.kind);
}

describe("tasks", () => {
  it("create (201 queued) -> discover (candidates) -> resolve (201, route persisted, task.resolved) -> execute handoff (202)", async () => {
    const created = await call("POST", `/machines/${machine}/tasks`, { skillKey: "compute.marketplace", operation: "rent", input: { gpus: 1 } });
    expect(created.status).toBe(201);
    const task = created.body.item;
    expect(task).toMatchObject({ status: "queued", skillKey: "compute.marketplace", operation: "rent", input: { gpus: 1 }, route: null, candidates: [] });

    const early = await call("POST", `/machines/${machine}/tasks/${task.id}/execute`);
    expect(early.status).toBe(409);
    expect(early.text).toBe('{"error":{"code":"ROUTE_REQUIRED","message":"The task has no resolved route."}}');
    const notDiscovered = await call("POST", `/machines/${machine}/tasks/${task.id}/resolve`, {});
    expect(notDiscovered.status).toBe(409);
    expect(notDiscovered.body.error.code).toBe("TASK_STATE_INVALID");

    const discovered = await call("POST", `/machines/${machine}/tasks/${task.id}/discover`);
    expect(discovered.status).toBe(200);
    expect(discovered.body.item.status).toBe("discovered");
    expect(discovered.body.item.candidates).toEqual([
      expect.objectContaining({ serviceId: "svc_compute_marketplace", executionMode: "external-handoff", operation: "rent" }),
    ]);

    const wrongService = await call("POST", `/machines/${machine}/tasks/${task.id}/resolve`, { serviceId: "svc_oracle_price_feed" });
    expect(wrongService.status).toBe(400);
    const resolved = await call("POST", `/machines/${machine}/tasks/${task.id}/resolve`, {});
    expect(resolved.status).toBe(201);
    expect(resolved.body.item.status).toBe("resolved");
    expect(resolved.body.item.route).toMatchObject({ serviceId: "svc_compute_marketplace", providerKey: "compute-exchange", taskId: task.id });
    const routeRow = await db().prisma.marketsRoute.findUnique({ where: { taskId: task.id } });
    expect(routeRow?.id).toBe(resolved.body.item.route.id);

    const executed = await call("POST", `/machines/${machine}/tasks/${task.id}/execute`);
    expect(executed.status).toBe(202);
    expect(executed.body.item.task.status).toBe("handoff");
    expect(executed.body.item.handoff).toMatchObject({ url: "https://compute-exchange.example.org/start" });
    expect(executed.body.item.run).toMatchObject({ status: "handoff", httpStatus: 202, executionMode: "external-handoff" });
    expect(executed.body.item.outcome).toMatchObject({ kind: "handoff", runId: executed.body.item.run.id });

    const again = await call("POST", `/machines/${machine}/tasks/${task.id}/execute`);
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe("TASK_STATE_INVALID");
    expect(await auditKinds(task.id)).toEqual(["task.created", "task.discovered", "task.resolved", "task.handoff-recorded"]);

    const read = await call("GET", `/machines/${machine}/tasks/${task.id}`);
    expect(read.body.item).toEqual(executed.body.item.task);
    const routes = (await call("GET", `/machines/${machine}/routes`)).body.items;
    expect(routes.map((r: any) => r.id)).toContain(resolved.body.item.route.id);
    const outcomes = (await call("GET", `/machines/${machine}/outcomes`)).body.items;
    expect(outcomes.map((o: any) => o.id)).toContain(executed.body.item.outcome.id);
    const run = await call("GET", `/runs/${executed.body.item.run.id}`);
    expect(run.body.item).toEqual(executed.body.item.run);
    expect((await call("GET", "/runs/run_nope")).status).toBe(404);
  });

  it("refuses bad task input (unknown skill or operation, non-object input) and writes nothing", async () => {
    const tasks = await db().prisma.marketsTask.count();
    const events = await db().prisma.marketAuditEvent.count();
    for (const body of [{}, { skillKey: "nope.skill" }, { skillKey: "oracle.price-feed", operation: "rent" }, { skillKey: "oracle.price-feed", input: [1] }, { skillKey: 7 }]) {
      const response = await call("POST", `/machines/${machine}/tasks`, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.error.code).toBe("VALIDATION_ERROR");
    }
    expect((await call("POST", `/machines/${machine}/tasks/task_nope/discover`)).status).toBe(404);
    expect(await db().prisma.marketsTask.count()).toBe(tasks);
    expect(await db().prisma.marketAuditEvent.count()).toBe(events);
  });

  it("lists tasks newest first with status filter and keyset cursors", async () => {
    const own = (await seedBoundMachine(p)).id;
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await call("POST", `/machines/${own}/tasks`, { skillKey: "storage.object" })).body.item.id);
    await call("POST", `/machines/${own}/tasks/${ids[0]}/discover`);
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await call("GET", `/machines/${own}/tasks?limit=2${cursor ? `&cursor=${cursor}` : ""}`);
      expect(page.status).toBe(200);
      seen.push(...page.body.items.map((t: any) => t.id));
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(seen).toEqual([...ids].reverse());
    const discovered = (await call("GET", `/machines/${own}/tasks?status=discovered`)).body.items;
    expect(discovered.map((t: any) => t.id)).toEqual([ids[0]]);
    expect((await call("GET", `/machines/${own}/tasks?status=weird`)).status).toBe(400);
    expect((await call("GET", `/machines/${own}/tasks?limit=501`)).status).toBe(400);
  });

  it("GET /runs needs machineId and filters by task, status, provider and time", async () => {
    const own = (await seedBoundMachine(p)).id;
    const runIds: string[] = [];
    const taskIds: string[] = [];
    for (const skillKey of ["storage.object", "data.location"]) {
      const t = (await call("POST", `/machines/${own}/tasks`, { skillKey })).body.item;
      await call("POST", `/machines/${own}/tasks/${t.id}/discover`);
      await call("POST", `/machines/${own}/tasks/${t.id}/resolve`, {});
      runIds.push((await call("POST", `/machines/${own}/tasks/${t.id}/execute`)).body.item.run.id);
      taskIds.push(t.id);
    }
    const missing = await call("GET", "/runs");
    expect(missing.status).toBe(400);
    expect(missing.body.error.code).toBe("VALIDATION_ERROR");
    const all = (await call("GET", `/runs?machineId=${own}`)).body.items.map((r: any) => r.id);
    expect(all).toEqual([...runIds].reverse());
    expect((await call("GET", `/runs?machineId=${own}&taskId=${taskIds[0]}`)).body.items.map((r: any) => r.id)).toEqual([runIds[0]]);
    expect((await call("GET", `/runs?machineId=${own}&providerKey=geo-data`)).body.items.map((r: any) => r.id)).toEqual([runIds[1]]);
    expect((await call("GET", `/runs?machineId=${own}&status=handoff`)).body.items).toHaveLength(2);
    expect((await call("GET", `/runs?machineId=${own}&status=succeeded`)).body.items).toHaveLength(0);
    expect((await call("GET", `/runs?machineId=${own}&since=2999-01-01T00:00:00Z`)).body.items).toHaveLength(0);
    expect((await call("GET", `/runs?machineId=${own}&until=2000-01-01T00:00:00Z`)).body.items).toHaveLength(0);
    expect((await call("GET", `/runs?machineId=${own}&since=2000-01-01T00:00:00Z`)).body.items).toHaveLength(2);
    expect((await call("GET", `/runs?machineId=${own}&since=yesterday`)).status).toBe(400);
    expect((await call("GET", `/runs?machineId=${own}&status=bogus`)).status).toBe(400);
    const page = await call("GET", `/runs?machineId=${own}&limit=1`);
    expect(page.body.items.map((r: any) => r.id)).toEqual([runIds[1]]);
    expect((await call("GET", `/runs?machineId=${own}&limit=1&cursor=${page.body.nextCursor}`)).body.items.map((r: any) => r.id)).toEqual([runIds[0]]);
    const blocked = (await seedBoundMachine(p, { status: "archived" })).id;
    expect((await call("GET", `/runs?machineId=${blocked}`)).body.error.code).toBe("MACHINE_NOT_ACTIVE");
  });

  it("GraphQL serves the task pipeline", async () => {
    const s = sessionOf(machine);
    const created = await graphql(p.graphql, `mutation($m: String!, $s: String) { createTask(machineId: $m, machineSession: $s, input: { skillKey: "device.control" }) { id status operation executingDeadline createdAt } }`, { m: machine, s });
    expect(created.body.data.createTask).toMatchObject({ status: "QUEUED", operation: "command", executingDeadline: null });
    const stored = await db().prisma.marketsTask.findUniqueOrThrow({ where: { id: created.body.data.createTask.id } });
    expect(stored.status).toBe("queued");
    expect(created.body.data.createTask.createdAt).toBe(stored.createdAt.toISOString());
    const id = created.body.data.createTask.id;
    const execute = await graphql(p.graphql, `mutation($m: String!, $t: String!, $s: String) { executeTask(machineId: $m, taskId: $t, machineSession: $s) { httpStatus } }`, { m: machine, t: id, s });
    expect(execute.body.errors?.[0]?.extensions?.code).toBe("ROUTE_REQUIRED");
  });
});
