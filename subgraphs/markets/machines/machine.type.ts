import { Directive, Field, ObjectType } from "type-graphql";

@ObjectType({ description: "A machine's binding to its on-chain identity in the machine-markets service (document 3)." })
export class MarketsRegistration {
  @Field(() => String)
  identityRef!: string;

  @Field(() => String)
  status!: string;

  @Field(() => String, { description: "ISO 8601 time of registration." })
  registeredAt!: string;
}

@Directive('@key(fields: "machineId")')
@ObjectType("Machine")
export class MarketsMachine {
  @Field(() => String)
  machineId!: string;
}
