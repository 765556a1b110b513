import { Field, Int, ObjectType } from "type-graphql";
import { McrRating } from "./scoring/mcr.type.js";

@ObjectType({ description: "One machine of an operator, with its MCR (full history)." })
export class OperatorMachine {
  @Field(() => String)
  did!: string;

  @Field(() => String)
  machineId!: string;

  @Field(() => Int)
  mcrScore!: number;

  @Field(() => McrRating)
  mcr!: McrRating;

  @Field(() => Boolean)
  negativeFlag!: boolean;
}

@ObjectType()
export class OffsetPagination {
  @Field(() => Int)
  offset!: number;

  @Field(() => Int)
  limit!: number;

  @Field(() => Int, { description: "Machines listed for the operator before registration filtering." })
  total!: number;
}

@ObjectType({ description: "An operator's machines (GET /operator/{did}/machines), one page." })
export class OperatorMachines {
  @Field(() => String, { description: "The operator DID as asked for." })
  operatorDid!: string;

  @Field(() => [OperatorMachine])
  machines!: OperatorMachine[];

  @Field(() => OffsetPagination)
  pagination!: OffsetPagination;
}
