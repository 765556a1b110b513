import { Arg, Ctx, Int, Mutation, Query, Resolver } from "type-graphql";
import type { SubgraphContext } from "../shared/context.js";
import { ChipEvidenceRecord } from "./attestation.type.js";
import { ChipChallenge, IntakeReceipt } from "./challenge.type.js";
import type { VerifyDeps } from "./deps.js";
import { VerifyErrors } from "./errors.js";

@Resolver()
export class ChipResolver {
  constructor(private readonly deps: VerifyDeps) {}

  @Mutation(() => ChipChallenge, { description: "POST /v1/verify/chip/challenge. Needs the onboarding token." })
  createChipChallenge(
    @Arg("machineId", () => String) machineId: string,
    @Ctx() context: SubgraphContext,
  ): Promise<ChipChallenge> {
    this.requireOnboarding(context);
    return this.deps.challenges.issue(machineId);
  }

  @Mutation(() => IntakeReceipt, {
    description: "POST /v1/verify/chip/evidence: the evidence file text, byte for byte. Needs the onboarding token.",
  })
  submitChipEvidence(
    @Arg("evidence", () => String) evidence: string,
    @Ctx() context: SubgraphContext,
  ): Promise<IntakeReceipt> {
    this.requireOnboarding(context);
    return this.deps.intake.submit(evidence);
  }

  @Query(() => [ChipEvidenceRecord], { description: "Operator: accepted evidence awaiting a chip attestation." })
  async pendingChipEvidence(
    @Arg("limit", () => Int, { defaultValue: 50 }) limit: number,
    @Ctx() context: SubgraphContext,
  ): Promise<ChipEvidenceRecord[]> {
    this.requireOperator(context);
    return this.deps.attestations.pending(limit);
  }

  @Query(() => ChipEvidenceRecord, {
    description:
      "Operator: the evidence, if it may be attested now (not attested, not expired, machine still active with the same DID controller and chain).",
  })
  async attestableChipEvidence(
    @Arg("receiptId", () => String) receiptId: string,
    @Ctx() context: SubgraphContext,
  ): Promise<ChipEvidenceRecord> {
    this.requireOperator(context);
    return this.deps.attestations.attestable(receiptId);
  }

  @Mutation(() => ChipEvidenceRecord, {
    description:
      "Operator: record that the chip attestation for this receipt is on chain (checked against the registry and the machine's current context).",
  })
  recordChipAttestation(
    @Arg("receiptId", () => String) receiptId: string,
    @Arg("attestationUid", () => String) attestationUid: string,
    @Ctx() context: SubgraphContext,
  ): Promise<ChipEvidenceRecord> {
    this.requireOperator(context);
    return this.deps.attestations.record(receiptId, attestationUid);
  }

  private requireOnboarding(context: SubgraphContext): void {
    if (!this.deps.onboardingTokens.accepts(context.authorization)) throw VerifyErrors.authRequired();
  }

  private requireOperator(context: SubgraphContext): void {
    if (!this.deps.operatorTokens.accepts(context.authorization)) throw VerifyErrors.authRequired();
  }
}
