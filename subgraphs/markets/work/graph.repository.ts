/** Graph rows (markets_graph_node, markets_graph_edge); each write runs with its audit event in one transaction. */
import type { Database } from "../../shared/db/index.js";
import type { MarketsGraphEdge, MarketsGraphNode } from "../../shared/db/generated/client.js";
import { inStore } from "../../shared/db/in-store.js";
import { MarketsErrors } from "../common/errors.js";
import { invalid, notFound, type Tx } from "../common/support.js";

export type { MarketsGraphEdge, MarketsGraphNode };

/** Largest graph read at once (nodes, and edges): bounded answers. */
export const GRAPH_READ_LIMIT = 1000;

export class GraphRepository {
  constructor(
    private readonly db: Database,
    private readonly log: (error: unknown) => void,
  ) {}

  private store<T>(step: () => Promise<T>): Promise<T> {
    return inStore(step, MarketsErrors.storeUnavailable, this.log);
  }

  transaction<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    return this.store(() => this.db.prisma.$transaction(work));
  }

  read(machineId: string) {
    return this.store(async () => {
      const [nodes, edges] = await Promise.all([
        this.db.prisma.marketsGraphNode.findMany({ where: { machineId }, orderBy: [{ createdAt: "asc" }, { id: "asc" }], take: GRAPH_READ_LIMIT }),
        this.db.prisma.marketsGraphEdge.findMany({ where: { machineId }, orderBy: [{ createdAt: "asc" }, { id: "asc" }], take: GRAPH_READ_LIMIT }),
      ]);
      return { nodes, edges };
    });
  }

  async nodeIn(tx: Tx, machineId: string, nodeId: string): Promise<MarketsGraphNode> {
    const node = await tx.marketsGraphNode.findUnique({ where: { id: nodeId } });
    if (!node || node.machineId !== machineId) throw notFound();
    return node;
  }

  async edgeIn(tx: Tx, machineId: string, edgeId: string): Promise<MarketsGraphEdge> {
    const edge = await tx.marketsGraphEdge.findUnique({ where: { id: edgeId } });
    if (!edge || edge.machineId !== machineId) throw notFound();
    return edge;
  }

  /** Both ends must be nodes of this machine's graph, read under a share lock so a concurrent delete waits. */
  async requireEnds(tx: Tx, machineId: string, fromNodeId: string, toNodeId: string): Promise<void> {
    const ids = [...new Set([fromNodeId, toNodeId])];
    const rows = await tx.$queryRaw<Array<{ id: string }>>`
      SELECT id FROM markets_graph_node WHERE machine_id = ${machineId} AND id = ANY(${ids}::text[]) FOR SHARE`;
    if (rows.length !== ids.length) throw invalid();
  }
}
