import { Field, Float, InputType, ObjectType } from "type-graphql";
import { DateTimeScalar } from "../../shared/date-time.scalar.js";
import { statusEnum } from "../common/status-enum.js";

/** A pairing's states: active and paused may switch (PATCH); revoked is final (DELETE). */
export const PAIRING_STATUSES = ["active", "paused", "revoked"] as const;
export const AgentPairingStatus = statusEnum(
  "AgentPairingStatus",
  PAIRING_STATUSES,
  "ACTIVE <-> PAUSED (PATCH); ACTIVE | PAUSED -> REVOKED (DELETE, final) (REST: lowercase).",
);

const N = { nullable: true } as const;

@ObjectType({ description: "What a paired agent may do for the machine (public notes 2.3)." })
export class DelegationPolicyView {
  @Field(() => [String]) allowedSkillKeys!: string[];
  @Field(() => [String]) deniedSkillKeys!: string[];
  @Field(() => [String]) allowedServiceIds!: string[];
  @Field(() => [String]) deniedServiceIds!: string[];
  @Field(() => Float, N) perTransactionLimit!: number | null;
  @Field(() => Float, N) dailySpendLimit!: number | null;
  @Field(() => String, N) currency!: string | null;
}

@InputType({ description: "A delegation policy; absent lists are empty, absent limits unlimited." })
export class DelegationPolicyInput {
  @Field(() => [String], N) allowedSkillKeys?: string[] | null;
  @Field(() => [String], N) deniedSkillKeys?: string[] | null;
  @Field(() => [String], N) allowedServiceIds?: string[] | null;
  @Field(() => [String], N) deniedServiceIds?: string[] | null;
  @Field(() => Float, N) perTransactionLimit?: number | null;
  @Field(() => Float, N) dailySpendLimit?: number | null;
  @Field(() => String, N) currency?: string | null;
}

@ObjectType({ description: "How a pairing's agent proved its key: an EIP-191 signature over a pairing challenge." })
export class PairingVerification {
  @Field(() => String, { description: "eip191." }) method!: string;
  @Field(() => String) signerAddress!: string;
  @Field(() => DateTimeScalar) verifiedAt!: string;
  @Field(() => DateTimeScalar) challengeExpiresAt!: string;
}

@ObjectType({ description: "An agent paired with a machine (public notes 2.3)." })
export class AgentPairing {
  @Field(() => String, { description: "`pair_…`." }) id!: string;
  @Field(() => String) machineId!: string;
  @Field(() => AgentPairingStatus) status!: string;
  @Field(() => String) agentAddress!: string;
  @Field(() => String, N) agentDid!: string | null;
  @Field(() => String) agentProvider!: string;
  @Field(() => String) agentRole!: string;
  @Field(() => String, N) description!: string | null;
  @Field(() => PairingVerification, { nullable: true, description: "Null when the pairing was made with verification off." })
  verification!: PairingVerification | null;
  @Field(() => DelegationPolicyView) delegationPolicy!: DelegationPolicyView;
  @Field(() => String) delegationPolicyHash!: string;
  @Field(() => Boolean) hasAuthToken!: boolean;
  @Field(() => String, N) tokenLastFour!: string | null;
  @Field(() => String, N) sessionId!: string | null;
  @Field(() => String, N) sessionTokenId!: string | null;
  @Field(() => DateTimeScalar, N) sessionIssuedAt!: string | null;
  @Field(() => DateTimeScalar, N) sessionExpiresAt!: string | null;
  @Field(() => String, { nullable: true, description: "Only in the answer of create and session rotation." })
  pairingToken?: string | null;
  @Field(() => DateTimeScalar) createdAt!: string;
  @Field(() => DateTimeScalar) updatedAt!: string;
}

@ObjectType()
export class AgentPairingPage {
  @Field(() => [AgentPairing]) items!: AgentPairing[];
  @Field(() => String, N) nextCursor!: string | null;
}

@ObjectType({ description: "A pairing challenge: the agent signs `message` (EIP-191) with the key behind agentAddress." })
export class AgentPairingChallenge {
  @Field(() => String) challengeId!: string;
  @Field(() => String) machineId!: string;
  @Field(() => String) agentAddress!: string;
  @Field(() => String) agentDid!: string;
  @Field(() => String) message!: string;
  @Field(() => DateTimeScalar) expiresAt!: string;
  @Field(() => String) verificationMethod!: string;
}

@InputType()
export class AgentPairingChallengeInput {
  @Field(() => String) agentAddress!: string;
  @Field(() => String, N) agentDid?: string | null;
  @Field(() => String, N) agentProvider?: string | null;
  @Field(() => String, N) agentRole?: string | null;
}

@InputType({ description: "`{challengeId, signature}`: the challenge's message signed (EIP-191) by agentAddress." })
export class AgentProofInput {
  @Field(() => String) challengeId!: string;
  @Field(() => String) signature!: string;
}

@InputType()
export class CreateAgentPairingInput {
  @Field(() => String) agentAddress!: string;
  @Field(() => String, N) agentDid?: string | null;
  @Field(() => String, N) agentProvider?: string | null;
  @Field(() => String, N) agentRole?: string | null;
  @Field(() => String, N) description?: string | null;
  @Field(() => DelegationPolicyInput, N) delegationPolicy?: DelegationPolicyInput | null;
  @Field(() => AgentProofInput, N) agentProof?: AgentProofInput | null;
}

@InputType({ description: "PATCH: a new policy, or status active (resume) / paused (pause)." })
export class UpdateAgentPairingInput {
  @Field(() => DelegationPolicyInput, N) delegationPolicy?: DelegationPolicyInput | null;
  @Field(() => String, {
    nullable: true,
    description: "active or paused (AgentPairingStatus in its stored spelling): a string, checked by the service after the machine's authority, so an unknown value answers VALIDATION_ERROR as on REST.",
  })
  status?: string | null;
  @Field(() => String, N) description?: string | null;
}
