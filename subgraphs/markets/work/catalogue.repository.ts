/** Catalogue rows (markets_skill, markets_service) and stored searches (markets_search). */
import type { Database } from "../../shared/db/index.js";
import type { MarketsSearch, MarketsService, MarketsSkill } from "../../shared/db/generated/client.js";
import { inStore } from "../../shared/db/in-store.js";
import { MarketsErrors } from "../common/errors.js";
import { statementOf, type MarketsSql } from "../common/sql.js";
import { SERVICES, SKILLS } from "./catalogue.seed.js";

export type { MarketsSearch, MarketsService, MarketsSkill };

export interface ServiceFilter {
  skillKey?: string;
  serviceType?: string;
  executionMode?: string;
  providerKey?: string;
}

/** A service row under its Prisma field names. */
const SERVICE_BY_ID = `SELECT id, skill_key AS "skillKey", provider_key AS "providerKey", service_type AS "serviceType",
  execution_mode AS "executionMode", region, record FROM markets_service WHERE id = $1`;

export class CatalogueRepository {
  constructor(
    private readonly db: Database,
    private readonly log: (error: unknown) => void,
  ) {}

  private store<T>(step: () => Promise<T>): Promise<T> {
    return inStore(step, MarketsErrors.storeUnavailable, this.log);
  }

  /** Inserts the curated skills and their services that are missing (idempotent; safe across replicas). */
  seed(): Promise<unknown> {
    return this.store(async () => {
      await this.db.prisma.marketsSkill.createMany({ data: SKILLS.map((s) => ({ ...s })), skipDuplicates: true });
      await this.db.prisma.marketsService.createMany({
        data: SERVICES.map((s) => ({ ...s, record: s.record as never })),
        skipDuplicates: true,
      });
    });
  }

  skills(): Promise<MarketsSkill[]> {
    return this.store(() => this.db.prisma.marketsSkill.findMany({ orderBy: { key: "asc" } }));
  }

  skill(key: string): Promise<MarketsSkill | null> {
    return this.store(() => this.db.prisma.marketsSkill.findUnique({ where: { key } }));
  }

  /** The whole matching catalogue (it is curated and small), for listing and ranking. */
  services(filter: ServiceFilter): Promise<MarketsService[]> {
    return this.store(() =>
      this.db.prisma.marketsService.findMany({
        where: {
          skillKey: filter.skillKey,
          serviceType: filter.serviceType,
          executionMode: filter.executionMode,
          providerKey: filter.providerKey,
        },
        orderBy: { id: "asc" },
        take: 1000,
      }),
    );
  }

  /**
   * One service, read in `tx` (either kind of transaction, common/sql.ts) or, without one, as a plain statement
   * (Database.statement): one fixed SQL text for the execute claim's transaction and every plain read.
   */
  async service(id: string, tx: MarketsSql = this.db.statement): Promise<MarketsService | null> {
    const [row] = await this.store(() => statementOf(tx)<MarketsService>(SERVICE_BY_ID, [id]));
    return row ?? null;
  }

  saveSearch(row: MarketsSearch): Promise<MarketsSearch> {
    return this.store(() => this.db.prisma.marketsSearch.create({ data: row as never }));
  }

  search(id: string): Promise<MarketsSearch | null> {
    return this.store(() => this.db.prisma.marketsSearch.findUnique({ where: { id } }));
  }
}
