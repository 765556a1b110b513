import { Directive, Field, ObjectType, registerEnumType } from "type-graphql";

/** A topic's attestation status; the REST body spells each value lowercase (`verified`, ...). */
export enum VerificationStatus {
  VERIFIED = "VERIFIED",
  UNVERIFIED = "UNVERIFIED",
  EXPIRED = "EXPIRED",
  REVOKED = "REVOKED",
}
registerEnumType(VerificationStatus, {
  name: "VerificationStatus",
  description:
    "`UNVERIFIED`: no record for the topic; `REVOKED` takes precedence over `EXPIRED`. REST spellings: `verified`, `unverified`, `expired`, `revoked`.",
});

@ObjectType({ description: "Where a machine is homed." })
export class HomeChainRef {
  @Field(() => String, { description: "`evm` or `solana`." })
  kind!: string;

  @Field(() => String, { nullable: true, description: "Decimal chain ID (evm)." })
  chainId?: string | null;

  @Field(() => String, { nullable: true, description: "Genesis hash (solana)." })
  genesisHash?: string | null;
}

@ObjectType({ description: "An address in its native kind." })
export class AddressRef {
  @Field(() => String)
  kind!: string;

  @Field(() => String)
  address!: string;
}

@ObjectType()
export class TopicStatus {
  @Field(() => VerificationStatus)
  status!: VerificationStatus;
}

@ObjectType({ description: "One status per topic; the two are independent and there is no aggregate flag." })
export class VerificationTopics {
  @Field(() => TopicStatus, { description: "Bound to the operator address." })
  kyb!: TopicStatus;

  @Field(() => TopicStatus, { description: "Bound to the machine ID." })
  chip!: TopicStatus;
}

@ObjectType({ description: "The verification record of one machine homed on the primary chain (document 1)." })
export class MachineVerificationRecord {
  @Field(() => String)
  machineId!: string;

  @Field(() => String)
  machineDid!: string;

  @Field(() => HomeChainRef)
  homeChain!: HomeChainRef;

  @Field(() => AddressRef, { description: "Effective DID controller." })
  didController!: AddressRef;

  @Field(() => AddressRef, { description: "Operator (the KYB subject)." })
  operator!: AddressRef;

  @Field(() => VerificationTopics)
  verification!: VerificationTopics;
}

@Directive('@key(fields: "machineId")')
@ObjectType("Machine", { description: "A machine, keyed by its decimal on-chain machine ID." })
export class VerifyMachine {
  @Field(() => String)
  machineId!: string;
}
