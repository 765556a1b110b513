/**
 * A market machine's graph through the REST shim on the markets listener (and GraphQL), against the real database:
 * node statuses, shallow-merged data, 204 deletes, edges refused for missing nodes, node delete takes its edges in
 * one transaction, every change in the audit log, bad input changes nothing.
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

async function auditKinds(entityId: string): Promise<string[]> {
  const rows = await db().prisma.marketAuditEvent.findMany({ orderBy: { id: "asc" } });
  return rows.filter((r) => (r.data as any).entityId === entityId).map((r) => r.kind);
}

describe("graph nodes", () => {
  it("creates a node (201, draft by default), reads it in the graph, and logs graph.node.created", async () => {
    const created = await call("POST", `/machines/${machine}/graph/nodes`, { label: "Drive unit", data: { a: 1 } });
    expect(created.status).toBe(201);
    expect(created.body.item).toMatchObject({ machineId: machine, label: "Drive unit", status: "draft", kind: "component", data: { a: 1 } });
    expect(created.body.item.id).toMatch(/^node_[a-z2-7]{16}$/);
    const graph = await call("GET", `/machines/${machine}/graph`);
    expect(graph.status).toBe(200);
    expect(graph.body.item.nodes.map((n: any) => n.id)).toContain(created.body.item.id);
    expect(await auditKinds(created.body.item.id)).toEqual(["graph.node.created"]);
  });

  it("PATCH shallow-merges data and sets each documented status; an unknown status is VALIDATION_ERROR and changes nothing", async () => {
    const node = (await call("POST", `/machines/${machine}/graph/nodes`, { label: "Arm", data: { a: 1, nested: { x: 1, y: 2 } } })).body.item;
    for (const status of ["active", "blocked", "degraded", "draft"]) {
      const patched = await call("PATCH", `/machines/${machine}/graph/nodes/${node.id}`, { status });
      expect(patched.status).toBe(200);
      expect(patched.body.item.status).toBe(status);
    }
    const merged = await call("PATCH", `/machines/${machine}/graph/nodes/${node.id}`, { data: { b: 2, nested: { x: 9 } } });
    expect(merged.body.item.data).toEqual({ a: 1, b: 2, nested: { x: 9 } });
    const before = await db().prisma.marketsGraphNode.findUnique({ where: { id: node.id } });
    const bad = await call("PATCH", `/machines/${machine}/graph/nodes/${node.id}`, { status: "broken", label: "Renamed" });
    expect(bad.status).toBe(400);
    expect(bad.text).toBe('{"error":{"code":"VALIDATION_ERROR","message":"The request is not valid."}}');
    expect(await db().prisma.marketsGraphNode.findUnique({ where: { id: node.id } })).toEqual(before);
    expect(await auditKinds(node.id)).toEqual(["graph.node.created", ...Array(5).fill("graph.node.updated")]);
  });

  it("refuses bad node bodies with VALIDATION_ERROR and writes nothing", async () => {
    const count = await db().prisma.marketsGraphNode.count();
    const events = await db().prisma.marketAuditEvent.count();
    for (const body of [{}, { label: "" }, { label: 5 }, { label: "x", data: [1] }, { label: "x", status: "gone" }, "[]"]) {
      const response = await call("POST", `/machines/${machine}/graph/nodes`, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.error.code).toBe("VALIDATION_ERROR");
    }
    expect(await db().prisma.marketsGraphNode.count()).toBe(count);
    expect(await db().prisma.marketAuditEvent.count()).toBe(events);
  });

  it("unknown nodes are NOT_FOUND (404) for PATCH and DELETE", async () => {
    expect((await call("PATCH", `/machines/${machine}/graph/nodes/node_missing`, { label: "x" })).status).toBe(404);
    const missing = await call("DELETE", `/machines/${machine}/graph/nodes/node_missing`);
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe("NOT_FOUND");
  });

  it("a node of another machine is NOT_FOUND through this machine's path", async () => {
    const other = (await seedBoundMachine(p)).id;
    const node = (await call("POST", `/machines/${other}/graph/nodes`, { label: "Foreign" })).body.item;
    expect((await call("PATCH", `/machines/${machine}/graph/nodes/${node.id}`, { label: "x" })).status).toBe(404);
    expect((await call("DELETE", `/machines/${machine}/graph/nodes/${node.id}`)).status).toBe(404);
    expect(await db().prisma.marketsGraphNode.findUnique({ where: { id: node.id } })).not.toBeNull();
  });
});

describe("graph edges", () => {
  it("creates, patches and deletes an edge (201, 200, 204 with an empty body)", async () => {
    const a = (await call("POST", `/machines/${machine}/graph/nodes`, { label: "A" })).body.item;
    const b = (await call("POST", `/machines/${machine}/graph/nodes`, { label: "B" })).body.item;
    const edge = await call("POST", `/machines/${machine}/graph/edges`, { fromNodeId: a.id, toNodeId: b.id, data: { w: 1 } });
    expect(edge.status).toBe(201);
    expect(edge.body.item).toMatchObject({ fromNodeId: a.id, toNodeId: b.id, kind: "link", label: null, data: { w: 1 } });
    const patched = await call("PATCH", `/machines/${machine}/graph/edges/${edge.body.item.id}`, { label: "power", data: { v: 2 } });
    expect(patched.status).toBe(200);
    expect(patched.body.item).toMatchObject({ label: "power", data: { w: 1, v: 2 } });
    expect((await call("PATCH", `/machines/${machine}/graph/edges/${edge.body.item.id}`, { toNodeId: a.id })).status).toBe(400);
    const deleted = await call("DELETE", `/machines/${machine}/graph/edges/${edge.body.item.id}`);
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe("");
    expect(await db().prisma.marketsGraphEdge.findUnique({ where: { id: edge.body.item.id } })).toBeNull();
    expect(await auditKinds(edge.body.item.id)).toEqual(["graph.edge.created", "graph.edge.updated", "graph.edge.deleted"]);
    expect((await call("DELETE", `/machines/${machine}/graph/edges/${edge.body.item.id}`)).status).toBe(404);
  });

  it("refuses an edge whose node does not exist (or belongs to another machine): VALIDATION_ERROR, nothing written", async () => {
    const a = (await call("POST", `/machines/${machine}/graph/nodes`, { label: "A" })).body.item;
    const other = (await seedBoundMachine(p)).id;
    const foreign = (await call("POST", `/machines/${other}/graph/nodes`, { label: "F" })).body.item;
    const edges = await db().prisma.marketsGraphEdge.count();
    for (const body of [{ fromNodeId: a.id, toNodeId: "node_missing" }, { fromNodeId: "node_missing", toNodeId: a.id }, { fromNodeId: a.id, toNodeId: foreign.id }, { fromNodeId: a.id }]) {
      const refused = await call("POST", `/machines/${machine}/graph/edges`, body);
      expect(refused.status).toBe(400);
      expect(refused.body.error.code).toBe("VALIDATION_ERROR");
    }
    expect(await db().prisma.marketsGraphEdge.count()).toBe(edges);
  });

  it("deleting a node deletes its edges in the same transaction, each logged", async () => {
    const a = (await call("POST", `/machines/${machine}/graph/nodes`, { label: "A" })).body.item;
    const b = (await call("POST", `/machines/${machine}/graph/nodes`, { label: "B" })).body.item;
    const c = (await call("POST", `/machines/${machine}/graph/nodes`, { label: "C" })).body.item;
    const ab = (await call("POST", `/machines/${machine}/graph/edges`, { fromNodeId: a.id, toNodeId: b.id })).body.item;
    const ca = (await call("POST", `/machines/${machine}/graph/edges`, { fromNodeId: c.id, toNodeId: a.id })).body.item;
    const bc = (await call("POST", `/machines/${machine}/graph/edges`, { fromNodeId: b.id, toNodeId: c.id })).body.item;
    const deleted = await call("DELETE", `/machines/${machine}/graph/nodes/${a.id}`);
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe("");
    const graph = (await call("GET", `/machines/${machine}/graph`)).body.item;
    expect(graph.nodes.map((n: any) => n.id)).not.toContain(a.id);
    const edgeIds = graph.edges.map((e: any) => e.id);
    expect(edgeIds).not.toContain(ab.id);
    expect(edgeIds).not.toContain(ca.id);
    expect(edgeIds).toContain(bc.id);
    expect(await auditKinds(ab.id)).toEqual(["graph.edge.created", "graph.edge.deleted"]);
    expect(await auditKinds(a.id)).toEqual(["graph.node.created", "graph.node.deleted"]);
  });
});

describe("global rule 1 and GraphQL", () => {
  it("an inactive or unverified machine gets MACHINE_NOT_ACTIVE / MACHINE_NOT_ACTIVATED and nothing is written", async () => {
    const inactive = (await seedBoundMachine(p, { status: "blocked" })).id;
    const unverified = (await seedBoundMachine(p, { identityVerified: false, status: "draft" })).id;
    const nodes = await db().prisma.marketsGraphNode.count();
    const r1 = await call("POST", `/machines/${inactive}/graph/nodes`, { label: "x" });
    expect(r1.status).toBe(409);
    expect(r1.text).toBe('{"error":{"code":"MACHINE_NOT_ACTIVE","message":"The machine is not active."}}');
    const r2 = await call("GET", `/machines/${unverified}/graph`);
    expect(r2.status).toBe(409);
    expect(r2.body.error.code).toBe("MACHINE_NOT_ACTIVATED");
    expect(await db().prisma.marketsGraphNode.count()).toBe(nodes);
  });

  it("GraphQL serves the same operations", async () => {
    const s = sessionOf(machine);
    const anonymous = await graphql(p.graphql, `mutation($m: String!) { createGraphNode(machineId: $m, input: { label: "x" }) { id } }`, { m: machine });
    expect(anonymous.body.errors?.[0]?.extensions?.code).toBe("MACHINE_IDENTITY_PROOF_REQUIRED");
    const created = await graphql(
      p.graphql,
      `mutation($m: String!, $s: String) { createGraphNode(machineId: $m, machineSession: $s, input: { label: "Via GraphQL", data: { k: "v" } }) { id status data } }`,
      { m: machine, s },
    );
    expect(created.body.errors).toBeUndefined();
    expect(created.body.data.createGraphNode).toMatchObject({ status: "DRAFT", data: { k: "v" } });
    const read = await graphql(p.graphql, `query($m: String!) { machineGraph(machineId: $m) { nodes { id } } }`, { m: machine });
    expect(read.body.data.machineGraph.nodes.map((n: any) => n.id)).toContain(created.body.data.createGraphNode.id);
    const bad = await graphql(p.graphql, `mutation($m: String!, $s: String) { createGraphNode(machineId: $m, machineSession: $s, input: { label: "x", status: "nope" }) { id } }`, { m: machine, s });
    expect(bad.body.errors?.[0]?.extensions?.code).toBe("VALIDATION_ERROR");
  });

  it("the federated Machine entity (on-chain ID) reaches its market record's graph and tasks", async () => {
    const bound = await seedBoundMachine(p, { demo: p.demo.machines.find((m) => m.machineId === "1")! });
    const node = (await call("POST", `/machines/${bound.id}/graph/nodes`, { label: "Entity node" })).body.item;
    const query = `{ machine(machineId: "1") { marketMachine { id graph { nodes { id label } edges { id } } tasks(limit: 5) { items { id } } } } }`;
    const result = await graphql(p.graphql, query);
    expect(result.body.errors).toBeUndefined();
    expect(result.body.data.machine.marketMachine).toEqual({ id: bound.id, graph: { nodes: [{ id: node.id, label: "Entity node" }], edges: [] }, tasks: { items: [] } });
    await db().prisma.marketMachine.update({ where: { id: bound.id }, data: { status: "blocked" } });
    const blocked = await graphql(p.graphql, query);
    expect(blocked.body.data.machine.marketMachine).toEqual({ id: bound.id, graph: null, tasks: null });
  });
});
