import { Field, ObjectType } from "type-graphql";
import { JSONObjectScalar } from "../../shared/json-object.scalar.js";
import { DateTimeScalar } from "../../shared/date-time.scalar.js";

const S = () => String;
const N = { nullable: true } as const;

@ObjectType({ description: "Who made a change: platform | agent | machine-agent | system, and its ID." })
export class AuditActorView {
  @Field(S) type!: string;
  @Field(() => String, N) id!: string | null;
}

@ObjectType({ description: "One state change of the markets API (written in the change's own transaction)." })
export class AuditEvent {
  @Field(S, { description: "Decimal, increasing." }) id!: string;
  @Field(S) kind!: string;
  @Field(() => String, N) machineId!: string | null;
  @Field(() => AuditActorView) actor!: AuditActorView;
  @Field(() => DateTimeScalar) occurredAt!: string;
  @Field(() => JSONObjectScalar, { description: "entityType, entityId, and before/after views (never secrets)." })
  data!: Record<string, unknown>;
}

@ObjectType()
export class AuditEventPage {
  @Field(() => [AuditEvent]) items!: AuditEvent[];
  @Field(() => String, N) nextCursor!: string | null;
}
