import { Directive, Field, ObjectType } from "type-graphql";

@Directive('@key(fields: "machineId")')
@ObjectType("Machine")
export class RatingsMachine {
  @Field(() => String)
  machineId!: string;
}
