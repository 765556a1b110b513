import { Directive, Field, Int, ObjectType, registerEnumType } from "type-graphql";

export enum MonetizationStatus {
  PENDING = "PENDING",
  OPTED_IN = "OPTED_IN",
  OPTED_OUT = "OPTED_OUT",
}
registerEnumType(MonetizationStatus, {
  name: "MonetizationStatus",
  description: "`PENDING`: the machine never opted in or out (no decision stored).",
});

@ObjectType({ description: "The applied monetization decision of a machine (document 2)." })
export class MonetizationState {
  @Field(() => String)
  machine_id!: string;

  @Field(() => MonetizationStatus)
  status!: MonetizationStatus;

  @Field(() => String, { nullable: true, description: "Address that signed the applied decision; null only when PENDING." })
  signer!: string | null;

  @Field(() => Int, { nullable: true, description: "Unix seconds of the applied decision; null only when PENDING." })
  updated_at!: number | null;
}

@Directive('@key(fields: "machineId")')
@ObjectType("Machine")
export class RatingsMachine {
  @Field(() => String)
  machineId!: string;
}
