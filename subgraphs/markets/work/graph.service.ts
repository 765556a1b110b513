/**
 * A market machine's graph: nodes with a status (draft | active | blocked | degraded) and a `data`
 * object shallow-merged on PATCH; directed edges between two existing nodes of the same machine. Deleting a node
 * deletes its edges in the same transaction. Every change writes its audit event in its transaction.
 */
import type { Clock } from "../../shared/clock.js";
import { GraphRepository, type MarketsGraphEdge, type MarketsGraphNode } from "./graph.repository.js";
import {
  PLATFORM_ACTOR,
  invalid,
  jsonObject,
  newId,
  oneOf,
  text,
  type AuditWriter,
  type JsonObject,
  type MachineCheck,
  type WorkAuditEvent,
} from "../common/support.js";

export const NODE_STATUSES = ["draft", "active", "blocked", "degraded"] as const;

export interface NodeInput {
  kind?: string | null;
  label?: string | null;
  status?: string | null;
  data?: unknown;
}

export interface EdgeInput {
  fromNodeId?: string | null;
  toNodeId?: string | null;
  kind?: string | null;
  label?: string | null;
  data?: unknown;
}

export const nodeView = (n: MarketsGraphNode) => ({
  id: n.id,
  machineId: n.machineId,
  kind: n.kind,
  label: n.label,
  status: n.status,
  data: n.data as JsonObject,
  createdAt: n.createdAt.toISOString(),
  updatedAt: n.updatedAt.toISOString(),
});

export const edgeView = (e: MarketsGraphEdge) => ({
  id: e.id,
  machineId: e.machineId,
  fromNodeId: e.fromNodeId,
  toNodeId: e.toNodeId,
  kind: e.kind,
  label: e.label,
  data: e.data as JsonObject,
  createdAt: e.createdAt.toISOString(),
  updatedAt: e.updatedAt.toISOString(),
});

export type NodeView = ReturnType<typeof nodeView>;
export type EdgeView = ReturnType<typeof edgeView>;

const given = <T>(value: T | null | undefined): value is T => value !== null && value !== undefined;

export class GraphService {
  constructor(
    private readonly repo: GraphRepository,
    private readonly machineCheck: MachineCheck,
    private readonly audit: AuditWriter,
    private readonly clock: Clock,
  ) {}

  async read(machineId: string) {
    await this.machineCheck(machineId);
    const { nodes, edges } = await this.repo.read(machineId);
    return { machineId, nodes: nodes.map(nodeView), edges: edges.map(edgeView) };
  }

  async createNode(machineId: string, input: NodeInput): Promise<NodeView> {
    await this.machineCheck(machineId);
    const now = new Date(this.clock.now());
    const row = {
      id: newId("node"),
      machineId,
      kind: text(input.kind, 100, "component"),
      label: text(input.label, 200),
      status: oneOf(input.status, NODE_STATUSES, "draft"),
      data: given(input.data) ? jsonObject(input.data) : {},
      createdAt: now,
      updatedAt: now,
    };
    return this.repo.transaction(async (tx) => {
      const node = await tx.marketsGraphNode.create({ data: row as never });
      await this.audit(tx, this.event(machineId, "graph.node.created", "graph-node", node.id, { after: nodeView(node) }));
      return nodeView(node);
    });
  }

  async updateNode(machineId: string, nodeId: string, input: NodeInput): Promise<NodeView> {
    await this.machineCheck(machineId);
    const patch = {
      kind: given(input.kind) ? text(input.kind, 100) : undefined,
      label: given(input.label) ? text(input.label, 200) : undefined,
      status: given(input.status) ? oneOf(input.status, NODE_STATUSES) : undefined,
      data: given(input.data) ? jsonObject(input.data) : undefined,
    };
    return this.repo.transaction(async (tx) => {
      const before = await this.repo.nodeIn(tx, machineId, nodeId);
      const data = patch.data ? jsonObject({ ...(before.data as JsonObject), ...patch.data }) : undefined;
      const node = await tx.marketsGraphNode.update({
        where: { id: nodeId },
        data: { kind: patch.kind, label: patch.label, status: patch.status, data: data as never, updatedAt: new Date(this.clock.now()) },
      });
      await this.audit(tx, this.event(machineId, "graph.node.updated", "graph-node", nodeId, { before: nodeView(before), after: nodeView(node) }));
      return nodeView(node);
    });
  }

  async deleteNode(machineId: string, nodeId: string): Promise<boolean> {
    await this.machineCheck(machineId);
    return this.repo.transaction(async (tx) => {
      const before = await this.repo.nodeIn(tx, machineId, nodeId);
      const edges = await tx.marketsGraphEdge.findMany({ where: { OR: [{ fromNodeId: nodeId }, { toNodeId: nodeId }] } });
      await tx.marketsGraphEdge.deleteMany({ where: { id: { in: edges.map((e) => e.id) } } });
      await tx.marketsGraphNode.delete({ where: { id: nodeId } });
      await this.audit(tx, this.event(machineId, "graph.node.deleted", "graph-node", nodeId, { before: nodeView(before), edgeIds: edges.map((e) => e.id) }));
      for (const edge of edges) {
        await this.audit(tx, this.event(machineId, "graph.edge.deleted", "graph-edge", edge.id, { before: edgeView(edge), cause: { nodeId } }));
      }
      return true;
    });
  }

  async createEdge(machineId: string, input: EdgeInput): Promise<EdgeView> {
    await this.machineCheck(machineId);
    const now = new Date(this.clock.now());
    const row = {
      id: newId("edge"),
      machineId,
      fromNodeId: text(input.fromNodeId, 100),
      toNodeId: text(input.toNodeId, 100),
      kind: text(input.kind, 100, "link"),
      label: given(input.label) ? text(input.label, 200) : null,
      data: given(input.data) ? jsonObject(input.data) : {},
      createdAt: now,
      updatedAt: now,
    };
    return this.repo.transaction(async (tx) => {
      await this.repo.requireEnds(tx, machineId, row.fromNodeId, row.toNodeId);
      const edge = await tx.marketsGraphEdge.create({ data: row as never });
      await this.audit(tx, this.event(machineId, "graph.edge.created", "graph-edge", edge.id, { after: edgeView(edge) }));
      return edgeView(edge);
    });
  }

  async updateEdge(machineId: string, edgeId: string, input: EdgeInput): Promise<EdgeView> {
    await this.machineCheck(machineId);
    // The ends of an edge are what it is: a different pair is a different edge.
    if (given(input.fromNodeId) || given(input.toNodeId)) throw invalid();
    const patch = {
      kind: given(input.kind) ? text(input.kind, 100) : undefined,
      label: given(input.label) ? text(input.label, 200) : undefined,
      data: given(input.data) ? jsonObject(input.data) : undefined,
    };
    return this.repo.transaction(async (tx) => {
      const before = await this.repo.edgeIn(tx, machineId, edgeId);
      const data = patch.data ? jsonObject({ ...(before.data as JsonObject), ...patch.data }) : undefined;
      const edge = await tx.marketsGraphEdge.update({
        where: { id: edgeId },
        data: { kind: patch.kind, label: patch.label, data: data as never, updatedAt: new Date(this.clock.now()) },
      });
      await this.audit(tx, this.event(machineId, "graph.edge.updated", "graph-edge", edgeId, { before: edgeView(before), after: edgeView(edge) }));
      return edgeView(edge);
    });
  }

  async deleteEdge(machineId: string, edgeId: string): Promise<boolean> {
    await this.machineCheck(machineId);
    return this.repo.transaction(async (tx) => {
      const before = await this.repo.edgeIn(tx, machineId, edgeId);
      await tx.marketsGraphEdge.delete({ where: { id: edgeId } });
      await this.audit(tx, this.event(machineId, "graph.edge.deleted", "graph-edge", edgeId, { before: edgeView(before) }));
      return true;
    });
  }

  private event(machineId: string, kind: string, entityType: string, entityId: string, payload: WorkAuditEvent["payload"]) {
    return { machineId, kind, actor: PLATFORM_ACTOR, entityType, entityId, payload };
  }
}
