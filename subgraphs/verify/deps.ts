import type { BearerTokens } from "../shared/bearer.js";
import type { AttestationService } from "./attestation.service.js";
import type { ChallengeService } from "./challenge.service.js";
import type { EvidenceIntakeService } from "./evidence-intake.service.js";
import type { VerificationRecordService } from "./verification-record.service.js";

/** What the verify subgraph's resolvers need. Built once per process by `createVerifyDeps`. */
export interface VerifyDeps {
  records: VerificationRecordService;
  challenges: ChallengeService;
  intake: EvidenceIntakeService;
  attestations: AttestationService;
  onboardingTokens: BearerTokens;
  operatorTokens: BearerTokens;
}
