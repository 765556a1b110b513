import { Field, ObjectType } from "type-graphql";
import { DateTimeScalar } from "../shared/date-time.scalar.js";

@ObjectType({ description: "Accepted chip evidence, stored for the operator's on-chain chip attestation." })
export class ChipEvidenceRecord {
  @Field(() => String)
  receiptId!: string;

  @Field(() => String)
  machineId!: string;

  @Field(() => String, { description: "0x-hex 32 bytes; the attestation's chipRef." })
  chipRef!: string;

  @Field(() => String, { description: "0x-hex SHA-256 of the canonical evidence bytes; the attestation's evidenceHash." })
  evidenceHash!: string;

  @Field(() => DateTimeScalar, { description: "When the evidence was accepted." })
  acceptedAt!: string;

  @Field(() => DateTimeScalar, { nullable: true, description: "When the attestation was recorded; null while awaiting attestation." })
  attestedAt?: string | null;
}
