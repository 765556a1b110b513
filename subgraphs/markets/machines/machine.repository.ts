import type { Database } from "../../shared/db/index.js";
import { inStore } from "../../shared/db/in-store.js";
import { MarketsErrors } from "../common/errors.js";

export interface MarketsMachineRow {
  machineId: string;
  identityRef: string;
  status: string;
  registeredAt: Date;
}

export class MarketsMachineRepository {
  constructor(
    private readonly db: Database,
    private readonly log: (error: unknown) => void,
  ) {}

  find(machineId: string): Promise<MarketsMachineRow | null> {
    return inStore(() => this.db.prisma.marketsMachine.findUnique({ where: { machineId } }), MarketsErrors.storeUnavailable, this.log);
  }
}
