import { Field, Int, ObjectType } from "type-graphql";
import { BondStatus } from "./scoring/mcr.type.js";
import { DataVisibility } from "./profile.type.js";

@ObjectType({ description: "A service the machine offers (ERC-8004 registration file)." })
export class CardService {
  @Field(() => String, { description: "`web`." })
  name!: string;

  @Field(() => String)
  endpoint!: string;
}

@ObjectType({ description: "Where the machine is registered." })
export class CardRegistration {
  @Field(() => String)
  type!: string;

  @Field(() => String)
  machineId!: string;

  @Field(() => String, { description: "CAIP-style `eip155:<chainId>:<registryAddress>`; chain ID read from the RPC at startup." })
  machineRegistry!: string;
}

@ObjectType({ description: "Machine card (GET /machines/{machine_id}), in the ERC-8004 registration file pattern." })
export class MachineCard {
  @Field(() => String)
  type!: string;

  @Field(() => String)
  name!: string;

  @Field(() => String)
  description!: string;

  @Field(() => String, { description: "The machine's DID." })
  did!: string;

  @Field(() => Boolean, { description: "Always true for registered machines." })
  active!: boolean;

  @Field(() => [CardService])
  services!: CardService[];

  @Field(() => DataVisibility)
  dataVisibility!: DataVisibility;

  @Field(() => String, { description: "Empty when unset." })
  documentationUrl!: string;

  @Field(() => String, { nullable: true })
  operator!: string | null;

  @Field(() => BondStatus)
  bondStatus!: BondStatus;

  @Field(() => Int)
  eventCount!: number;

  @Field(() => [CardRegistration], { description: "Exactly one entry." })
  registrations!: CardRegistration[];
}
