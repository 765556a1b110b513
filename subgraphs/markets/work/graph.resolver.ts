import { Arg, Mutation, Query, Resolver } from "type-graphql";
import type { MarketsDeps } from "../deps.js";
import { GraphEdge, GraphEdgeInput, GraphNode, GraphNodeInput, MachineGraph } from "./graph.type.js";
import { MACHINE_SESSION_ARG } from "../machines/identity/machine-session.type.js";

@Resolver()
export class GraphResolver {
  constructor(private readonly deps: MarketsDeps) {}

  @Query(() => MachineGraph, { description: "GET /machines/:machineId/graph" })
  machineGraph(@Arg("machineId", () => String) machineId: string): Promise<MachineGraph> {
    return this.deps.graph.read(machineId);
  }

  @Mutation(() => GraphNode, { description: "POST /machines/:machineId/graph/nodes (201)" })
  async createGraphNode(@Arg("machineId", () => String) machineId: string, @Arg("input", () => GraphNodeInput) input: GraphNodeInput, @Arg("machineSession", () => String, MACHINE_SESSION_ARG) machineSession: string | null): Promise<GraphNode> {
    await this.deps.machineSessions.authorize(machineSession, machineId);
    return this.deps.graph.createNode(machineId, input);
  }

  @Mutation(() => GraphNode, { description: "PATCH /machines/:machineId/graph/nodes/:nodeId; data is shallow-merged." })
  async updateGraphNode(
    @Arg("machineId", () => String) machineId: string,
    @Arg("nodeId", () => String) nodeId: string,
    @Arg("input", () => GraphNodeInput) input: GraphNodeInput,
    @Arg("machineSession", () => String, MACHINE_SESSION_ARG) machineSession: string | null,
  ): Promise<GraphNode> {
    await this.deps.machineSessions.authorize(machineSession, machineId);
    return this.deps.graph.updateNode(machineId, nodeId, input);
  }

  @Mutation(() => Boolean, { description: "DELETE /machines/:machineId/graph/nodes/:nodeId (204); its edges go with it." })
  async deleteGraphNode(@Arg("machineId", () => String) machineId: string, @Arg("nodeId", () => String) nodeId: string, @Arg("machineSession", () => String, MACHINE_SESSION_ARG) machineSession: string | null): Promise<boolean> {
    await this.deps.machineSessions.authorize(machineSession, machineId);
    return this.deps.graph.deleteNode(machineId, nodeId);
  }

  @Mutation(() => GraphEdge, { description: "POST /machines/:machineId/graph/edges (201); both nodes must exist." })
  async createGraphEdge(@Arg("machineId", () => String) machineId: string, @Arg("input", () => GraphEdgeInput) input: GraphEdgeInput, @Arg("machineSession", () => String, MACHINE_SESSION_ARG) machineSession: string | null): Promise<GraphEdge> {
    await this.deps.machineSessions.authorize(machineSession, machineId);
    return this.deps.graph.createEdge(machineId, input);
  }

  @Mutation(() => GraphEdge, { description: "PATCH /machines/:machineId/graph/edges/:edgeId" })
  async updateGraphEdge(
    @Arg("machineId", () => String) machineId: string,
    @Arg("edgeId", () => String) edgeId: string,
    @Arg("input", () => GraphEdgeInput) input: GraphEdgeInput,
    @Arg("machineSession", () => String, MACHINE_SESSION_ARG) machineSession: string | null,
  ): Promise<GraphEdge> {
    await this.deps.machineSessions.authorize(machineSession, machineId);
    return this.deps.graph.updateEdge(machineId, edgeId, input);
  }

  @Mutation(() => Boolean, { description: "DELETE /machines/:machineId/graph/edges/:edgeId (204)" })
  async deleteGraphEdge(@Arg("machineId", () => String) machineId: string, @Arg("edgeId", () => String) edgeId: string, @Arg("machineSession", () => String, MACHINE_SESSION_ARG) machineSession: string | null): Promise<boolean> {
    await this.deps.machineSessions.authorize(machineSession, machineId);
    return this.deps.graph.deleteEdge(machineId, edgeId);
  }
}
