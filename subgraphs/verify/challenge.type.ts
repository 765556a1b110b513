import { Field, ObjectType, registerEnumType } from "type-graphql";

/** The REST body's `status` of an intake receipt; the shim writes it lowercase (`accepted`). */
export enum IntakeStatus {
  ACCEPTED = "ACCEPTED",
}
registerEnumType(IntakeStatus, {
  name: "IntakeStatus",
  description: "Intake receipt status; REST spelling `accepted`.",
});

@ObjectType({ description: "A single-use chip challenge (201 body of POST /v1/verify/chip/challenge)." })
export class ChipChallenge {
  @Field(() => String, { description: "Decimal chain ID of the machine's home chain." })
  chainId!: string;

  @Field(() => String, { description: "Effective DID controller (EIP-55); it signs the controller proof." })
  didController!: string;

  @Field(() => String, { description: "Unix seconds, at most 300 s after issuance." })
  expiresAt!: string;

  @Field(() => String)
  machineDid!: string;

  @Field(() => String)
  machineId!: string;

  @Field(() => String, { description: "32 random bytes as lowercase 0x hex; returned once, only its SHA-256 is kept." })
  nonce!: string;

  @Field(() => String)
  profile!: string;

  @Field(() => String)
  protocol!: string;

  @Field(() => String)
  verifier!: string;
}

@ObjectType({ description: "Intake receipt (202 body of POST /v1/verify/chip/evidence)." })
export class IntakeReceipt {
  @Field(() => String)
  receiptId!: string;

  @Field(() => IntakeStatus, { description: "Always `ACCEPTED` (REST: `accepted`)." })
  status!: IntakeStatus;
}
