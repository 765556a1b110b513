import type { Database } from "../shared/db/index.js";

export interface MonetizationDecisionRow {
  machineId: string;
  optedIn: boolean;
  signer: string;
  timestamp: bigint;
  updatedAt: Date;
}

export class MonetizationRepository {
  constructor(private readonly db: Database) {}

  find(machineId: string): Promise<MonetizationDecisionRow | null> {
    return this.db.prisma.monetizationDecision.findUnique({ where: { machineId } });
  }
}
