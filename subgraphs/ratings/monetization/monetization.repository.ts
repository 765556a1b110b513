/**
 * Applied monetization decisions, one row per (deployment, machine). A decision replaces the applied one only when its
 * timestamp is strictly newer: one conditional upsert (`ON CONFLICT ... DO UPDATE ... WHERE stored < new`), which
 * PostgreSQL evaluates on the locked, latest row version, so parallel requests and several instances cannot reorder
 * decisions. Infrastructure failures surface as StoreUnavailableError (store-errors.ts), never as Prisma messages.
 */
import { toStoreError, type Database } from "../../shared/db/index.js";

export interface MonetizationDecisionRow {
  deployment: string;
  machineId: string;
  optedIn: boolean;
  signer: string;
  timestamp: bigint;
  updatedAt: Date;
}

export type NewDecision = Omit<MonetizationDecisionRow, "updatedAt">;

export class MonetizationRepository {
  constructor(private readonly db: Database) {}

  async find(deployment: string, machineId: string): Promise<MonetizationDecisionRow | null> {
    try {
      return await this.db.prisma.monetizationDecision.findUnique({ where: { deployment_machineId: { deployment, machineId } } });
    } catch (error) {
      throw toStoreError(error);
    }
  }

  /** Stores the decision if it is strictly newer than the applied one; returns the stored row, or null when stale. */
  async applyIfNewer(decision: NewDecision, now: Date): Promise<MonetizationDecisionRow | null> {
    try {
      const rows = await this.db.prisma.$queryRaw<MonetizationDecisionRow[]>`
        INSERT INTO monetization_decision (deployment, machine_id, opted_in, signer, timestamp, updated_at)
        VALUES (${decision.deployment}, ${decision.machineId}, ${decision.optedIn}, ${decision.signer}, ${decision.timestamp}, ${now})
        ON CONFLICT (deployment, machine_id) DO UPDATE
          SET opted_in = EXCLUDED.opted_in, signer = EXCLUDED.signer, timestamp = EXCLUDED.timestamp,
              updated_at = EXCLUDED.updated_at
          WHERE monetization_decision.timestamp < EXCLUDED.timestamp
        RETURNING deployment, machine_id AS "machineId", opted_in AS "optedIn", signer, timestamp, updated_at AS "updatedAt"`;
      return rows[0] ?? null;
    } catch (error) {
      throw toStoreError(error);
    }
  }
}
