/** `open_challenges{kind}`: challenges issued and neither consumed nor expired, counted at scrape time. */
import type { Clock } from "../../subgraphs/shared/clock.js";
import type { Database } from "../../subgraphs/shared/db/index.js";
import { observeOpenChallenges } from "../../subgraphs/shared/observability/metrics.js";

export function observeChallenges(db: Database, clock: Clock): () => void {
  return observeOpenChallenges(async () => {
    const now = clock.now();
    const [verify, identity] = await Promise.all([
      db.prisma.verifyChallenge.count({ where: { state: "issued", expiresAt: { gt: BigInt(Math.floor(now / 1000)) } } }),
      db.prisma.marketIdentityChallenge.count({ where: { consumedAt: null, expiresAt: { gt: new Date(now) } } }),
    ]);
    return { verify_chip: verify, machine_identity: identity };
  });
}
