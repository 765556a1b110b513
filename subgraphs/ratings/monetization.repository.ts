import type { Database } from "../shared/db/index.js";
import { inStore } from "../shared/db/in-store.js";
import { RatingsErrors } from "./errors.js";

export interface MonetizationDecisionRow {
  machineId: string;
  optedIn: boolean;
  signer: string;
  timestamp: bigint;
  updatedAt: Date;
}

export class MonetizationRepository {
  constructor(
    private readonly db: Database,
    private readonly log: (error: unknown) => void,
  ) {}

  find(machineId: string): Promise<MonetizationDecisionRow | null> {
    return inStore(() => this.db.prisma.monetizationDecision.findUnique({ where: { machineId } }), RatingsErrors.storeUnavailable, this.log);
  }
}
