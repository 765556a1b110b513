import type { Database } from "../shared/db/index.js";

export interface MarketsMachineRow {
  machineId: string;
  identityRef: string;
  status: string;
  registeredAt: Date;
}

export class MarketsMachineRepository {
  constructor(private readonly db: Database) {}

  find(machineId: string): Promise<MarketsMachineRow | null> {
    return this.db.prisma.marketsMachine.findUnique({ where: { machineId } });
  }
}
