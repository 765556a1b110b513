/**
 * The composition root of the subgraphs: builds each subgraph's dependencies and schema from the shared runtime
 * (config, database, chain reader, trust bundle). Used by the `all` role (all three in-process) and by the
 * `subgraph <name>` role (one per process).
 */
import type { GraphQLSchema } from "graphql";
import { BearerTokens } from "../subgraphs/shared/bearer.js";
import type { ChainReads } from "../subgraphs/shared/chain/types.js";
import type { PlatformConfig } from "../subgraphs/shared/config.js";
import type { Database } from "../subgraphs/shared/db/index.js";
import type { SubgraphName } from "../subgraphs/index.js";
import { buildVerifySchema } from "../subgraphs/verify/schema.js";
import { buildRatingsSchema } from "../subgraphs/ratings/schema.js";
import { buildMarketsSchema } from "../subgraphs/markets/schema.js";
import { VerificationRecordService } from "../subgraphs/verify/verification-record.service.js";
import { ChallengeRepository } from "../subgraphs/verify/challenge.repository.js";
import { ChallengeService } from "../subgraphs/verify/challenge.service.js";
import { EvidenceIntakeService } from "../subgraphs/verify/evidence-intake.service.js";
import { AttestationService } from "../subgraphs/verify/attestation.service.js";
import { systemClock, type Clock } from "../subgraphs/verify/clock.js";
import type { TrustBundle } from "../subgraphs/verify/evidence/trust.js";
import { MonetizationRepository } from "../subgraphs/ratings/monetization.repository.js";
import { MarketsMachineRepository } from "../subgraphs/markets/machine.repository.js";

export interface SubgraphRuntime {
  config: PlatformConfig;
  db: Database;
  chain: ChainReads;
  /** The pinned chip vendor trust bundle (loaded lazily; a failure is a store failure, not a rejection). */
  trust: () => Promise<TrustBundle>;
  clock?: Clock;
  log: (error: unknown) => void;
}

export interface VerifyRuntimeServices {
  challenges: ChallengeService;
}

export async function buildSubgraphSchema(
  name: SubgraphName,
  runtime: SubgraphRuntime,
): Promise<{ schema: GraphQLSchema; services?: VerifyRuntimeServices }> {
  const { config, db, chain, log } = runtime;
  const clock = runtime.clock ?? systemClock;
  switch (name) {
    case "verify": {
      const repository = new ChallengeRepository(db);
      const challenges = new ChallengeService(repository, chain, config, clock, log);
      const schema = await buildVerifySchema({
        records: new VerificationRecordService(chain, config.namespace),
        challenges,
        intake: new EvidenceIntakeService(repository, chain, runtime.trust, config, clock, log),
        attestations: new AttestationService(repository, chain, log),
        onboardingTokens: new BearerTokens(config.onboardingTokens),
        operatorTokens: new BearerTokens(config.operatorTokens),
      });
      return { schema, services: { challenges } };
    }
    case "ratings":
      return { schema: await buildRatingsSchema({ chain, monetization: new MonetizationRepository(db) }) };
    case "markets":
      return { schema: await buildMarketsSchema({ machines: new MarketsMachineRepository(db) }) };
  }
}
