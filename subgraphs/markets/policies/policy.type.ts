import { Field, InputType, ObjectType } from "type-graphql";
import { JSONObjectScalar } from "../../shared/json-object.scalar.js";
import { DateTimeScalar } from "../../shared/date-time.scalar.js";
import { statusEnum } from "../common/status-enum.js";
import { POLICY_STATUSES } from "./policy.service.js";

/** A policy's state (REST: lowercase). */
export const MarketPolicyStatus = statusEnum("MarketPolicyStatus", POLICY_STATUSES, "ACTIVE or DISABLED (REST: lowercase).");

const S = () => String;
const N = { nullable: true } as const;

@ObjectType({ description: "A cross-cutting policy. kind: spend | access | routing | compliance | custom." })
export class MarketPolicy {
  @Field(S) id!: string;
  @Field(S) name!: string;
  @Field(() => String, N) description!: string | null;
  @Field(S) kind!: string;
  @Field(() => MarketPolicyStatus) status!: string;
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
  @Field(() => String, { nullable: true, description: "active or disabled (MarketPolicyStatus in its stored spelling): a string, checked by the service, so an unknown value answers VALIDATION_ERROR as on REST." })
  status?: string | null;
  @Field(() => [String], N) machineIds?: string[] | null;
  @Field(() => JSONObjectScalar, N) rules?: Record<string, unknown> | null;
}
