import { Field, Float, InputType, Int, ObjectType } from "type-graphql";
import { statusEnum } from "../common/status-enum.js";
import { RUN_STATUSES, TASK_STATUSES } from "./task.service.js";
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

/** A task's state, over the service's state list (REST: lowercase). */
export const MarketTaskStatus = statusEnum(
  "MarketTaskStatus",
  TASK_STATUSES,
  "QUEUED → DISCOVERED → RESOLVED → EXECUTING → EXECUTED | FAILED | HANDOFF (REST: lowercase).",
);

/** A run's outcome (REST: lowercase). */
export const MarketRunStatus = statusEnum("MarketRunStatus", RUN_STATUSES, "SUCCEEDED | FAILED | HANDOFF (a 202 from the provider) (REST: lowercase).");

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

@ObjectType({ description: "One execution of a task's route." })
export class MarketRun {
  @Field(S) id!: string;
  @Field(S) machineId!: string;
  @Field(S) taskId!: string;
  @Field(S) routeId!: string;
  @Field(S) providerKey!: string;
  @Field(S) executionMode!: string;
  @Field(() => MarketRunStatus) status!: string;
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
  @Field(() => JSONObjectScalar, { description: "The provider's answer (or the handoff or error), as the provider wrote it: free-form by design." })
  result!: Record<string, unknown>;
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
