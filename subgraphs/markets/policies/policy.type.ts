import { Field, InputType, ObjectType } from "type-graphql";
import { JSONObjectScalar } from "../../shared/json-object.scalar.js";
import { DateTimeScalar } from "../../shared/date-time.scalar.js";

const S = () => String;
const N = { nullable: true } as const;

@ObjectType({ description: "A cross-cutting policy. kind: spend | access | routing | compliance | custom; status: active | disabled." })
export class MarketPolicy {
  @Field(S) id!: string;
  @Field(S) name!: string;
  @Field(() => String, N) description!: string | null;
  @Field(S) kind!: string;
  @Field(S) status!: string;
  @Field(() => [String], { description: "Market machine IDs it applies to; empty: every machine." }) machineIds!: string[];
  @Field(() => JSONObjectScalar, { description: "Replaced whole on update." }) rules!: Record<string, unknown>;
  @Field(() => DateTimeScalar) createdAt!: string;
  @Field(() => DateTimeScalar) updatedAt!: string;
}

@ObjectType()
export class MarketPolicyPage {
  @Field(() => [MarketPolicy]) items!: MarketPolicy[];
  @Field(() => String, N) nextCursor!: string | null;
}

@InputType({ description: "Create: name required. Update: every field optional; description null clears it." })
export class MarketPolicyInput {
  @Field(() => String, N) name?: string | null;
  @Field(() => String, N) description?: string | null;
  @Field(() => String, N) kind?: string | null;
  @Field(() => String, N) status?: string | null;
  @Field(() => [String], N) machineIds?: string[] | null;
  @Field(() => JSONObjectScalar, N) rules?: Record<string, unknown> | null;
}
