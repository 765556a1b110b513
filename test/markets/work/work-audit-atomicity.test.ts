/**
 * Audit atomicity: every state change of the graph, task and policy families writes its audit event in the same
 * transaction as the change. The audit writer here writes the real event and then fails: afterwards neither the
 * change nor the event exists. On PGlite, and PostgreSQL when DATABASE_URL is set.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../../subgraphs/shared/config.js";
import { OutboundClient } from "../../../subgraphs/shared/net/outbound.js";
import type { SubgraphRuntime } from "../../../subgraphs/shared/runtime.js";
import { auditWriter } from "../../../subgraphs/markets/common/support.js";
import { buildWorkServices, type WorkServices } from "../../../subgraphs/markets/work/index.js";
import { buildPolicyServices, type PolicyServices } from "../../../subgraphs/markets/policies/index.js";
import { databaseTargets, withTestDatabase } from "../../support/db.js";
import { seedMarketMachine, seededStore } from "../../support/markets.js";

class InjectedFailure extends Error {}

describe.each(databaseTargets())("audit events commit with their change on %s", (target) => {
  const testDb = withTestDatabase(target);
  let healthy: WorkServices & PolicyServices;
  let failing: WorkServices & PolicyServices;
  let machine: string;
  const clock = { now: () => Date.now() };
  const written: string[] = [];

  beforeAll(async () => {
    const runtime = { config: loadConfig({}), db: testDb.db, outbound: new OutboundClient(), log: () => {} } as unknown as SubgraphRuntime;
    const real = auditWriter(clock);
    const injected: typeof real = async (tx, event) => {
      await real(tx, event);
      written.push(event.kind);
      throw new InjectedFailure("after the audit write");
    };
    healthy = { ...(await buildWorkServices(runtime, clock, { store: seededStore(testDb.db), endpoints: async () => null })), ...buildPolicyServices(runtime, clock) };
    failing = {
      ...(await buildWorkServices(runtime, clock, { store: seededStore(testDb.db), endpoints: async () => null, audit: injected })),
      ...buildPolicyServices(runtime, clock, injected),
    };
    machine = (await seedMarketMachine(testDb.db)).id;
  });

  const counts = async () => {
    const p = testDb.db.prisma;
    return {
      events: await p.marketAuditEvent.count(),
      nodes: await p.marketsGraphNode.count(),
      edges: await p.marketsGraphEdge.count(),
      tasks: await p.marketsTask.count(),
      routes: await p.marketsRoute.count(),
      runs: await p.marketsRun.count(),
      policies: await p.marketsPolicy.count(),
    };
  };

  async function neither(kind: string, change: () => Promise<unknown>) {
    const before = await counts();
    const snapshot = JSON.stringify(await testDb.db.prisma.marketsTask.findMany({ orderBy: { id: "asc" } }));
    written.length = 0;
    await expect(change()).rejects.toBeInstanceOf(InjectedFailure);
    expect(written).toContain(kind);
    expect(await counts()).toEqual(before);
    expect(JSON.stringify(await testDb.db.prisma.marketsTask.findMany({ orderBy: { id: "asc" } }))).toBe(snapshot);
  }

  it("graph: node and edge create, update, delete", async () => {
    const a = await healthy.graph.createNode(machine, { label: "A" });
    const b = await healthy.graph.createNode(machine, { label: "B" });
    const edge = await healthy.graph.createEdge(machine, { fromNodeId: a.id, toNodeId: b.id });
    await neither("graph.node.created", () => failing.graph.createNode(machine, { label: "C" }));
    await neither("graph.node.updated", () => failing.graph.updateNode(machine, a.id, { status: "active", data: { x: 1 } }));
    expect((await healthy.graph.read(machine)).nodes.find((n) => n.id === a.id)).toMatchObject({ status: "draft", data: {} });
    await neither("graph.edge.created", () => failing.graph.createEdge(machine, { fromNodeId: b.id, toNodeId: a.id }));
    await neither("graph.edge.updated", () => failing.graph.updateEdge(machine, edge.id, { label: "x" }));
    await neither("graph.edge.deleted", () => failing.graph.deleteEdge(machine, edge.id));
    await neither("graph.node.deleted", () => failing.graph.deleteNode(machine, a.id));
    const graph = await healthy.graph.read(machine);
    expect(graph.edges.map((e) => e.id)).toContain(edge.id);
  });

  it("tasks: create, discover, resolve, execute (handoff)", async () => {
    await neither("task.created", () => failing.tasks.create(machine, { skillKey: "storage.object" }));
    const task = await healthy.tasks.create(machine, { skillKey: "storage.object" });
    await neither("task.discovered", () => failing.tasks.discover(machine, task.id));
    await healthy.tasks.discover(machine, task.id);
    await neither("task.resolved", () => failing.tasks.resolve(machine, task.id, null));
    expect((await healthy.tasks.get(machine, task.id)).status).toBe("discovered");
    await healthy.tasks.resolve(machine, task.id, null);
    const before = await counts();
    written.length = 0;
    await expect(failing.executor.execute(machine, task.id)).rejects.toBeInstanceOf(InjectedFailure);
    expect(written).toEqual(["task.handoff-recorded"]);
    expect(await counts()).toEqual(before);
    // The claim the executor took is the one thing left: the task is `executing`, without a run (docs/markets-work.md).
    expect((await healthy.tasks.get(machine, task.id)).status).toBe("executing");
  });

  it("policies: create and update", async () => {
    await neither("policy.created", () => failing.policies.create({ name: "Spend cap" }));
    const policy = await healthy.policies.create({ name: "Spend cap", rules: { max: 1 } });
    await neither("policy.updated", () => failing.policies.update(policy.id, { status: "disabled" }));
    expect(await healthy.policies.get(policy.id)).toEqual(policy);
  });
});
