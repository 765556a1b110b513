/**
 * Policies and the audit log through the REST shim: policies (GET/POST /policies, GET/PATCH /policies/:policyId) and
 * GET /audit-events with machine, kind, actor and time filters and keyset cursors. Neither family checks machines.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { graphql, type TestPlatform } from "../support/platform.js";
import { PLATFORM_START_TIMEOUT_MS, startMarketsPlatform } from "./helpers.js";
import { marketsCall } from "../support/markets.js";
import { seedBoundMachine } from "../support/machine-sessions.js";

let p: TestPlatform;
const call = (method: string, path: string, body?: unknown) => marketsCall(p.markets, method, path, body);
const db = () => p.platform.database!;

beforeAll(async () => {
  p = await startMarketsPlatform();
}, PLATFORM_START_TIMEOUT_MS);
afterAll(() => p?.close());

describe("policies", () => {
  it("creates (201), reads, patches and lists policies; each change is logged", async () => {
    const created = await call("POST", "/policies", { name: "Daily spend", kind: "spend", rules: { dailyLimit: 50, currency: "USD" }, machineIds: ["mach_x", "mach_x"] });
    expect(created.status).toBe(201);
    const policy = created.body.item;
    expect(policy).toMatchObject({ name: "Daily spend", kind: "spend", status: "active", description: null, machineIds: ["mach_x"], rules: { dailyLimit: 50, currency: "USD" } });
    expect(policy.id).toMatch(/^pol_/);
    expect((await call("GET", `/policies/${policy.id}`)).body.item).toEqual(policy);
    const patched = await call("PATCH", `/policies/${policy.id}`, { status: "disabled", rules: { dailyLimit: 20 } });
    expect(patched.status).toBe(200);
    expect(patched.body.item).toMatchObject({ status: "disabled", rules: { dailyLimit: 20 }, name: "Daily spend" });
    const events = await db().prisma.marketAuditEvent.findMany({ where: { kind: { startsWith: "policy." } }, orderBy: { id: "asc" } });
    expect(events.filter((e) => (e.data as any).entityId === policy.id).map((e) => [e.kind, e.machineId])).toEqual([
      ["policy.created", null],
      ["policy.updated", null],
    ]);
    expect(patched.body.item.updatedAt >= policy.updatedAt).toBe(true);
    const described = await call("PATCH", `/policies/${policy.id}`, { description: "Caps spend per day" });
    expect(described.body.item.description).toBe("Caps spend per day");
    const cleared = await call("PATCH", `/policies/${policy.id}`, { description: null });
    expect(cleared.body.item).toMatchObject({ description: null, name: "Daily spend", status: "disabled" });
    const list = await call("GET", "/policies?status=disabled");
    expect(list.body.items.map((x: any) => x.id)).toContain(policy.id);
    expect((await call("GET", "/policies?status=active")).body.items.map((x: any) => x.id)).not.toContain(policy.id);
  });

  it("bad input is VALIDATION_ERROR and changes nothing; unknown policy is NOT_FOUND", async () => {
    const policy = (await call("POST", "/policies", { name: "Keep" })).body.item;
    const count = await db().prisma.marketsPolicy.count();
    for (const body of [{}, { name: "" }, { name: "x", kind: "other" }, { name: "x", rules: [1] }, { name: "x", machineIds: [1] }, { name: "x", status: "paused" }]) {
      const response = await call("POST", "/policies", body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.error.code).toBe("VALIDATION_ERROR");
    }
    expect((await call("PATCH", `/policies/${policy.id}`, { status: "paused" })).status).toBe(400);
    expect((await call("GET", `/policies/${policy.id}`)).body.item).toEqual(policy);
    expect(await db().prisma.marketsPolicy.count()).toBe(count);
    const missing = await call("GET", "/policies/pol_missing");
    expect(missing.status).toBe(404);
    expect(missing.text).toBe('{"error":{"code":"NOT_FOUND","message":"Not found."}}');
    expect((await call("PATCH", "/policies/pol_missing", { name: "x" })).status).toBe(404);
  });

  it("pages newest first with an opaque cursor", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await call("POST", "/policies", { name: `Page ${i}`, kind: "routing" })).body.item.id);
    const first = await call("GET", "/policies?kind=routing&limit=2");
    expect(first.body.items.map((x: any) => x.id)).toEqual([ids[2], ids[1]]);
    const second = await call("GET", `/policies?kind=routing&limit=2&cursor=${first.body.nextCursor}`);
    expect(second.body.items.map((x: any) => x.id)).toEqual([ids[0]]);
    expect(second.body.nextCursor).toBeUndefined();
  });
});

describe("GET /audit-events", () => {
  it("filters by machine, kind, actor and time, newest first, with keyset cursors; no machine check", async () => {
    const a = (await seedBoundMachine(p)).id;
    const b = (await seedBoundMachine(p)).id;
    const nodeA = (await call("POST", `/machines/${a}/graph/nodes`, { label: "A" })).body.item;
    await call("PATCH", `/machines/${a}/graph/nodes/${nodeA.id}`, { status: "active" });
    await call("POST", `/machines/${b}/graph/nodes`, { label: "B" });
    await call("POST", `/machines/${a}/tasks`, { skillKey: "storage.object" });

    const forA = await call("GET", `/audit-events?machineId=${a}`);
    expect(forA.status).toBe(200);
    // Oldest: the controller's session the suite opened for the machine.
    expect(forA.body.items.map((e: any) => e.kind)).toEqual(["task.created", "graph.node.updated", "graph.node.created", "machine.session-created"]);
    const event = forA.body.items[1];
    expect(event).toMatchObject({ machineId: a, actor: { type: "platform", id: "api" }, data: { entityType: "graph-node", entityId: nodeA.id } });
    expect(event.data.before.status).toBe("draft");
    expect(event.data.after.status).toBe("active");
    expect((await call("GET", `/audit-events?machineId=${a}&kind=graph.node.created`)).body.items).toHaveLength(1);
    expect((await call("GET", `/audit-events?machineId=${b}`)).body.items.map((e: any) => e.kind)).toEqual(["graph.node.created", "machine.session-created"]);
    expect((await call("GET", `/audit-events?machineId=${a}&actorType=platform&actorId=api`)).body.items).toHaveLength(3);
    expect((await call("GET", `/audit-events?machineId=${a}&actorType=machine`)).body.items.map((e: any) => e.kind)).toEqual(["machine.session-created"]);
    expect((await call("GET", `/audit-events?machineId=${a}&actorType=agent`)).body.items).toHaveLength(0);
    const at = Date.parse(event.occurredAt);
    const since = new Date(at).toISOString();
    const sinceEvents = (await call("GET", `/audit-events?machineId=${a}&since=${since}`)).body.items;
    expect(sinceEvents.every((e: any) => Date.parse(e.occurredAt) >= at)).toBe(true);
    expect(sinceEvents.map((e: any) => e.id)).toContain(event.id);
    const untilEvents = (await call("GET", `/audit-events?machineId=${a}&until=${since}`)).body.items;
    expect(untilEvents.every((e: any) => Date.parse(e.occurredAt) < at)).toBe(true);

    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await call("GET", `/audit-events?machineId=${a}&limit=1${cursor ? `&cursor=${cursor}` : ""}`);
      seen.push(...page.body.items.map((e: any) => e.id));
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(seen).toEqual(forA.body.items.map((e: any) => e.id));

    // Audit routes skip global rule 1: a blocked machine's log is readable.
    const blocked = (await seedBoundMachine(p, { status: "blocked" })).id;
    expect((await call("GET", `/audit-events?machineId=${blocked}`)).status).toBe(200);
  });

  it("refuses bad filters and cursors with VALIDATION_ERROR", async () => {
    for (const query of ["limit=0", "limit=501", "cursor=!!", `cursor=${Buffer.from('["x"]').toString("base64url")}`, "actorType=robot", "since=tomorrow", "limit=1&limit=2"]) {
      const response = await call("GET", `/audit-events?${query}`);
      expect(response.status, query).toBe(400);
      expect(response.body.error.code).toBe("VALIDATION_ERROR");
    }
  });

  it("GraphQL serves policies and audit events", async () => {
    const created = await graphql(p.graphql, `mutation { createMarketPolicy(input: { name: "GQL", kind: "access" }) { id kind } }`);
    expect(created.body.data.createMarketPolicy.kind).toBe("access");
    const events = await graphql(p.graphql, `query { auditEvents(kind: "policy.created", limit: 1) { items { kind data } nextCursor } }`);
    expect(events.body.data.auditEvents.items[0]).toMatchObject({ kind: "policy.created", data: { entityId: created.body.data.createMarketPolicy.id } });
  });
});
