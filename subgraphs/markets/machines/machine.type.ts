import { Directive, Field, ObjectType } from "type-graphql";
import { DateTimeScalar } from "../../shared/date-time.scalar.js";
import { MarketMachineStatus } from "./market-machine.type.js";

@ObjectType({ description: "A machine's binding to its on-chain identity in the machine-markets service (document 3)." })
export class MarketsRegistration {
  @Field(() => String)
  identityRef!: string;

  @Field(() => MarketMachineStatus)
  status!: MarketMachineStatus;

  @Field(() => DateTimeScalar, { description: "When the market machine record was created." })
  registeredAt!: string;
}
@Directive('@key(fields: "machineId")')
@ObjectType("Machine")
export class MarketsMachine {
  @Field(() => String)
  machineId!: string;
}
