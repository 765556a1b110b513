import { Field, InputType, Int, ObjectType, registerEnumType } from "type-graphql";
import { JSONObjectScalar } from "../../shared/json-object.scalar.js";
import { DateTimeScalar } from "../../shared/date-time.scalar.js";

export enum MarketMachineStatus {
  DRAFT = "DRAFT",
  ACTIVE = "ACTIVE",
  DEGRADED = "DEGRADED",
  BLOCKED = "BLOCKED",
  ARCHIVED = "ARCHIVED",
}
registerEnumType(MarketMachineStatus, {
  name: "MarketMachineStatus",
  description: "Only ACTIVE machines that are identity-verified pass global rule 1 (REST: lowercase).",
});

@ObjectType({ description: "The identity proof stored with a machine record (public notes 2.2)." })
export class MachineIdentityProof {
  @Field(() => String, { description: "`eip191`." })
  method!: string;

  @Field(() => String)
  identityRef!: string;

  @Field(() => String, { description: "EIP-55 address that signed the challenge." })
  signerAddress!: string;

  @Field(() => String)
  challengeId!: string;

  @Field(() => DateTimeScalar, { description: "ISO 8601." })
  verifiedAt!: string;

  @Field(() => DateTimeScalar, { description: "ISO 8601." })
  challengeExpiresAt!: string;

  @Field(() => [String], { description: "The identity's on-chain controllers when the proof was verified." })
  controllerAddresses!: string[];

  @Field(() => String, { description: "`<namespace>-mcr`: the controllers were read from the chain." })
  resolutionSource!: string;
}

@ObjectType({ description: "A machine record of the machine-markets API (GET /api/v1/machines/{machineId})." })
export class MarketMachine {
  @Field(() => String, { description: "Market machine ID (`mach_…`), a server string distinct from the on-chain ID." })
  id!: string;

  @Field(() => String)
  displayName!: string;

  @Field(() => MarketMachineStatus)
  status!: MarketMachineStatus;

  @Field(() => String)
  ownerId!: string;

  @Field(() => String, {
    nullable: true,
    description: "As the caller spelled it: `did:<namespace>:<id>`, `<namespace>:machine:<id>` or `did:<namespace>:0x<address>`; immutable once set.",
  })
  identityRef!: string | null;

  @Field(() => String, { nullable: true, description: "The decimal on-chain machine ID identityRef names." })
  onChainMachineId!: string | null;

  @Field(() => MachineIdentityProof, { nullable: true })
  identityProof!: MachineIdentityProof | null;

  @Field(() => Boolean, { description: "The identity was proven (or, with verification off, resolved) at the last write." })
  identityVerified!: boolean;

  @Field(() => String)
  machineType!: string;

  @Field(() => String)
  runtimeProfile!: string;

  @Field(() => [String])
  capabilities!: string[];

  @Field(() => [String])
  policyIds!: string[];

  @Field(() => [String])
  skillKeys!: string[];

  @Field(() => JSONObjectScalar, { description: "String values by string keys." })
  labels!: Record<string, string>;

  @Field(() => DateTimeScalar, { description: "ISO 8601." })
  createdAt!: string;

  @Field(() => DateTimeScalar, { description: "ISO 8601." })
  updatedAt!: string;
}

@ObjectType({ description: "A page of machine records; nextCursor is null on the last page." })
export class MarketMachinePage {
  @Field(() => [MarketMachine])
  items!: MarketMachine[];

  @Field(() => String, { nullable: true })
  nextCursor!: string | null;
}

@ObjectType({ description: "A short-lived, single-use machine identity challenge (POST /api/v1/machine-identity/challenges)." })
export class MachineIdentityChallenge {
  @Field(() => String)
  challengeId!: string;

  @Field(() => String)
  identityRef!: string;

  @Field(() => String, { description: "Sign exactly this text (EIP-191 personal_sign) with a controller key." })
  message!: string;

  @Field(() => DateTimeScalar, { description: "ISO 8601." })
  expiresAt!: string;

  @Field(() => String, { description: "`eip191`." })
  verificationMethod!: string;

  @Field(() => [String])
  controllerAddresses!: string[];
}

@InputType({ description: "A signed challenge: `{challengeId, signature}`." })
export class IdentityProofInput {
  @Field(() => String)
  challengeId!: string;

  @Field(() => String, { description: "0x + 130 hex characters; v 27 or 28, low s." })
  signature!: string;
}

@InputType({ description: "POST /api/v1/machines." })
export class CreateMarketMachineInput {
  @Field(() => String)
  displayName!: string;

  @Field(() => String, { nullable: true })
  identityRef?: string | null;

  @Field(() => IdentityProofInput, { nullable: true, description: "Required when identity verification is `required`." })
  identityProof?: IdentityProofInput | null;

  @Field(() => MarketMachineStatus, { nullable: true, description: "Default: ACTIVE when the identity is verified, else DRAFT." })
  status?: MarketMachineStatus | null;

  @Field(() => String, { nullable: true, description: "Default: the proof's signer address." })
  ownerId?: string | null;

  @Field(() => String, { nullable: true })
  machineType?: string | null;

  @Field(() => String, { nullable: true })
  runtimeProfile?: string | null;

  @Field(() => [String], { nullable: true })
  capabilities?: string[] | null;

  @Field(() => [String], { nullable: true })
  policyIds?: string[] | null;

  @Field(() => [String], { nullable: true })
  skillKeys?: string[] | null;

  @Field(() => JSONObjectScalar, { nullable: true })
  labels?: Record<string, unknown> | null;
}

@InputType({ description: "PATCH /api/v1/machines/{machineId}: every field optional; identityRef immutable once set." })
export class UpdateMarketMachineInput {
  @Field(() => String, { nullable: true })
  displayName?: string | null;

  @Field(() => String, { nullable: true })
  identityRef?: string | null;

  @Field(() => IdentityProofInput, { nullable: true })
  identityProof?: IdentityProofInput | null;

  @Field(() => MarketMachineStatus, { nullable: true })
  status?: MarketMachineStatus | null;

  @Field(() => String, { nullable: true })
  ownerId?: string | null;

  @Field(() => String, { nullable: true })
  machineType?: string | null;

  @Field(() => String, { nullable: true })
  runtimeProfile?: string | null;

  @Field(() => [String], { nullable: true })
  capabilities?: string[] | null;

  @Field(() => [String], { nullable: true })
  policyIds?: string[] | null;

  @Field(() => [String], { nullable: true })
  skillKeys?: string[] | null;

  @Field(() => JSONObjectScalar, { nullable: true })
  labels?: Record<string, unknown> | null;
}


