import { Field, Float, InputType, Int, ObjectType, registerEnumType } from "type-graphql";
import { JSONObjectScalar } from "../../shared/json-object.scalar.js";
import { MarketHandoff } from "./catalogue.type.js";
import { DateTimeScalar } from "../../shared/date-time.scalar.js";

const S = () => String;
const N = { nullable: true } as const;

@ObjectType({ description: "A catalogue service a discovered task could be routed to, best first." })
export class RouteCandidate {
  @Field(S) serviceId!: string;
  @Field(S) providerKey!: string;
  @Field(S) executionMode!: string;
  @Field(S) operation!: string;
  @Field(() => Float) score!: number;
  @Field(() => [String]) reasons!: string[];
}

@ObjectType({ description: "The route a task resolved to." })
export class MarketRoute {
  @Field(S) id!: string;
  @Field(S) machineId!: string;
  @Field(S) taskId!: string;
  @Field(S) serviceId!: string;
  @Field(S) skillKey!: string;
  @Field(S) providerKey!: string;
  @Field(S) executionMode!: string;
  @Field(S) operation!: string;
  @Field(() => Float) score!: number;
  @Field(() => DateTimeScalar) createdAt!: string;
}

/**
 * A task's state. The enum's internal values are the stored lowercase spellings, so services and audit payloads keep
 * them; GraphQL answers the UPPER_CASE names and the REST shim writes them back in lowercase.
 */
export enum MarketTaskStatus {
  QUEUED = "queued",
  DISCOVERED = "discovered",
  RESOLVED = "resolved",
  EXECUTING = "executing",
  EXECUTED = "executed",
  FAILED = "failed",
  HANDOFF = "handoff",
}
registerEnumType(MarketTaskStatus, {
  name: "MarketTaskStatus",
  description: "QUEUED → DISCOVERED → RESOLVED → EXECUTING → EXECUTED | FAILED | HANDOFF (REST: lowercase).",
});

@ObjectType({ description: "A task; status is a MarketTaskStatus." })
export class MarketTask {
  @Field(S) id!: string;
  @Field(S) machineId!: string;
  @Field(S) skillKey!: string;
  @Field(S) operation!: string;
  @Field(() => JSONObjectScalar, { description: "The caller's free-form input object." }) input!: Record<string, unknown>;
  @Field(() => MarketTaskStatus) status!: string;
  @Field(() => DateTimeScalar, { nullable: true, description: "While EXECUTING: when the execution claim lapses and the task is failed; null otherwise." })
  executingDeadline!: string | null;
  @Field(() => [RouteCandidate]) candidates!: RouteCandidate[];
  @Field(() => String, N) routeId!: string | null;
  @Field(() => MarketRoute, N) route!: MarketRoute | null;
  @Field(() => DateTimeScalar) createdAt!: string;
  @Field(() => DateTimeScalar) updatedAt!: string;
}

@ObjectType({ description: "One execution of a task's route. status: succeeded | failed | handoff." })
export class MarketRun {
  @Field(S) id!: string;
  @Field(S) machineId!: string;
  @Field(S) taskId!: string;
  @Field(S) routeId!: string;
  @Field(S) providerKey!: string;
  @Field(S) executionMode!: string;
  @Field(S) status!: string;
  @Field(() => Int, { nullable: true, description: "The provider's HTTP status (202 for a handoff)." }) httpStatus!: number | null;
  @Field(() => String, { nullable: true, description: "provider_status, or an outbound refusal reason." }) errorReason!: string | null;
  @Field(() => DateTimeScalar) startedAt!: string;
  @Field(() => DateTimeScalar) finishedAt!: string;
}

@ObjectType({ description: "What a run produced. kind: provider-response | handoff | error." })
export class MarketOutcome {
  @Field(S) id!: string;
  @Field(S) machineId!: string;
  @Field(S) taskId!: string;
  @Field(S) runId!: string;
  @Field(S) kind!: string;
  @Field(() => JSONObjectScalar) result!: Record<string, unknown>;
  @Field(() => DateTimeScalar) createdAt!: string;
}

@ObjectType({ description: "POST .../execute: httpStatus is the REST status (the provider's, 202 for a handoff)." })
export class TaskExecution {
  @Field(() => Int) httpStatus!: number;
  @Field(() => MarketTask) task!: MarketTask;
  @Field(() => MarketRun) run!: MarketRun;
  @Field(() => MarketOutcome) outcome!: MarketOutcome;
  @Field(() => MarketHandoff, N) handoff!: MarketHandoff | null;
}

@ObjectType()
export class MarketTaskPage {
  @Field(() => [MarketTask]) items!: MarketTask[];
  @Field(() => String, N) nextCursor!: string | null;
}

@ObjectType()
export class MarketRoutePage {
  @Field(() => [MarketRoute]) items!: MarketRoute[];
  @Field(() => String, N) nextCursor!: string | null;
}

@ObjectType()
export class MarketOutcomePage {
  @Field(() => [MarketOutcome]) items!: MarketOutcome[];
  @Field(() => String, N) nextCursor!: string | null;
}

@ObjectType()
export class MarketRunPage {
  @Field(() => [MarketRun]) items!: MarketRun[];
  @Field(() => String, N) nextCursor!: string | null;
}

@InputType({ description: "skillKey required (a catalogue skill); operation defaults to the skill's first; input: {}." })
export class MarketTaskInput {
  @Field(() => String, N) skillKey?: string | null;
  @Field(() => String, N) operation?: string | null;
  @Field(() => JSONObjectScalar, N) input?: Record<string, unknown> | null;
}
