/** Builds the verify subgraph (document 1) from the shared runtime: its services, schema and cleanup job. */
import { BearerTokens } from "../shared/bearer.js";
import { systemClock } from "../shared/clock.js";
import type { BuiltSubgraph, SubgraphRuntime } from "../shared/runtime.js";
import { AttestationService } from "./attestation.service.js";
import { ChallengeRepository } from "./challenge.repository.js";
import { ChallengeService } from "./challenge.service.js";
import { EvidenceIntakeService } from "./evidence-intake.service.js";
import { trustBundleLoader } from "./evidence/trust-loader.js";
import { buildVerifySchema } from "./schema.js";
import { VerificationRecordService } from "./verification-record.service.js";

export interface VerifyServices {
  challenges: ChallengeService;
}

export async function buildVerifySubgraph(runtime: SubgraphRuntime): Promise<BuiltSubgraph<VerifyServices>> {
  const { config, db, chain, log } = runtime;
  const clock = runtime.clock ?? systemClock;
  const repository = new ChallengeRepository(db);
  const challenges = new ChallengeService(repository, chain, config, clock, log);
  const loadTrust = trustBundleLoader(config, runtime.demo);
  const trust = runtime.wrapTrust ? runtime.wrapTrust(loadTrust) : loadTrust;
  const schema = await buildVerifySchema({
    records: new VerificationRecordService(chain, config.namespace),
    challenges,
    intake: new EvidenceIntakeService(repository, chain, trust, config, clock, log),
    attestations: new AttestationService(repository, chain, config, clock, log),
    onboardingTokens: new BearerTokens(config.onboardingTokens),
    operatorTokens: new BearerTokens(config.operatorTokens),
  });
  return {
    schema,
    services: { challenges },
    jobs: [{ name: "challenge cleanup", intervalMs: config.verify.cleanupIntervalMs, run: () => challenges.cleanup() }],
  };
}
