import { Field, InputType, ObjectType } from "type-graphql";
import { JSONObjectScalar } from "../../shared/json-object.scalar.js";
import { DateTimeScalar } from "../../shared/date-time.scalar.js";
import { statusEnum } from "../common/status-enum.js";
import { NODE_STATUSES } from "./graph.service.js";

/** A graph node's state (REST: lowercase). */
export const GraphNodeStatus = statusEnum("GraphNodeStatus", NODE_STATUSES, "DRAFT (the default), ACTIVE, BLOCKED or DEGRADED (REST: lowercase).");

@ObjectType({ description: "A node of a market machine's graph." })
export class GraphNode {
  @Field(() => String) id!: string;
  @Field(() => String, { description: "The market machine ID." }) machineId!: string;
  @Field(() => String) kind!: string;
  @Field(() => String) label!: string;
  @Field(() => GraphNodeStatus) status!: string;
  @Field(() => JSONObjectScalar, { description: "Shallow-merged on update." }) data!: Record<string, unknown>;
  @Field(() => DateTimeScalar) createdAt!: string;
  @Field(() => DateTimeScalar) updatedAt!: string;
}

@ObjectType({ description: "A directed edge between two nodes of the same machine's graph." })
export class GraphEdge {
  @Field(() => String) id!: string;
  @Field(() => String) machineId!: string;
  @Field(() => String) fromNodeId!: string;
  @Field(() => String) toNodeId!: string;
  @Field(() => String) kind!: string;
  @Field(() => String, { nullable: true }) label!: string | null;
  @Field(() => JSONObjectScalar, { description: "Free-form JSON by design, stored and answered as written." }) data!: Record<string, unknown>;
  @Field(() => DateTimeScalar) createdAt!: string;
  @Field(() => DateTimeScalar) updatedAt!: string;
}

@ObjectType({ description: "A market machine's graph (at most 1,000 nodes and 1,000 edges, oldest first)." })
export class MachineGraph {
  @Field(() => String) machineId!: string;
  @Field(() => [GraphNode]) nodes!: GraphNode[];
  @Field(() => [GraphEdge]) edges!: GraphEdge[];
}

@InputType({ description: "Create: label required; kind defaults to component, status to draft, data to {}. Update: all optional." })
export class GraphNodeInput {
  @Field(() => String, { nullable: true }) kind?: string | null;
  @Field(() => String, { nullable: true }) label?: string | null;
  @Field(() => String, { nullable: true, description: "draft, active, blocked or degraded (GraphNodeStatus in its stored spelling): a string, checked by the service, so an unknown value answers VALIDATION_ERROR as on REST." })
  status?: string | null;
  @Field(() => JSONObjectScalar, { nullable: true }) data?: Record<string, unknown> | null;
}

@InputType({ description: "Create: fromNodeId and toNodeId required (nodes of the same machine). Update: kind, label, data only." })
export class GraphEdgeInput {
  @Field(() => String, { nullable: true }) fromNodeId?: string | null;
  @Field(() => String, { nullable: true }) toNodeId?: string | null;
  @Field(() => String, { nullable: true }) kind?: string | null;
  @Field(() => String, { nullable: true }) label?: string | null;
  @Field(() => JSONObjectScalar, { nullable: true }) data?: Record<string, unknown> | null;
}
