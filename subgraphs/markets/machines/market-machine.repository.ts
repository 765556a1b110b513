/** Machine records (model MarketMachine) and their GraphQL shape. */
import type { MarketMachine as MarketMachineRow } from "../../shared/db/generated/client.js";
import { Prisma } from "../../shared/db/index.js";
import type { MarketsTx } from "../common/audit.repository.js";
import { MarketMachine, MarketMachineStatus, type MachineIdentityProof } from "./market-machine.type.js";
import { type PageRequest, createdAtKeyset, createdAtPage } from "../common/pagination.js";
import type { MarketsStore } from "../common/store.js";
import { MACHINE_COLUMNS } from "../common/machine.guard.js";

export type { MarketMachineRow };

export function toMarketMachine(row: MarketMachineRow): MarketMachine {
  return {
    id: row.id,
    displayName: row.displayName,
    status: row.status.toUpperCase() as MarketMachineStatus,
    ownerId: row.ownerId,
    identityRef: row.identityRef,
    onChainMachineId: row.onChainMachineId,
    identityProof: (row.identityProof as unknown as MachineIdentityProof | null) ?? null,
    identityVerified: row.identityVerified,
    machineType: row.machineType,
    runtimeProfile: row.runtimeProfile,
    capabilities: row.capabilities,
    policyIds: row.policyIds,
    skillKeys: row.skillKeys,
    labels: row.labels as Record<string, string>,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** `identityProof: { not: Prisma.DbNull }`, ordered by the (created_at, id) index (the list bench's floor runs it too). */
export const LIST_FIRST = `SELECT ${MACHINE_COLUMNS} FROM market_machine WHERE identity_proof IS NOT NULL
  ORDER BY created_at, id LIMIT $1::int`;
const LIST_AFTER = `SELECT ${MACHINE_COLUMNS} FROM market_machine WHERE identity_proof IS NOT NULL
  AND (created_at > $1::timestamptz OR (created_at = $1::timestamptz AND id > $2::text))
  ORDER BY created_at, id LIMIT $3::int`;

export class MarketMachineRepository {
  constructor(private readonly store: MarketsStore) {}

  find(id: string): Promise<MarketMachineRow | null> {
    return this.store.read((prisma) => prisma.marketMachine.findUnique({ where: { id } }));
  }

  findByOnChainId(onChainMachineId: string): Promise<MarketMachineRow | null> {
    return this.store.read((prisma) => prisma.marketMachine.findUnique({ where: { onChainMachineId } }));
  }

  /**
   * Records with a stored identity proof, oldest first (keyset on createdAt, id). The public list is the markets
   * stack's hot read, so it is one fixed parameterised statement on the pool (a prepared statement per connection on
   * PostgreSQL) instead of Prisma's query pipeline; the rows have Prisma's shape (MACHINE_COLUMNS). Identical pages
   * asked for at once share one execution (MarketsStore.sharedRead).
   */
  async listWithProof(page: PageRequest): Promise<{ items: MarketMachineRow[]; nextCursor: string | null }> {
    // The keyset checks the cursor's instant (VALIDATION_ERROR when it does not parse); the statement gets it as
    // JavaScript read it, so both sides compare the same instant.
    const after = createdAtKeyset(page).where.OR && page.after;
    const rows = await this.store.sharedRead((sql) =>
      after
        ? sql<MarketMachineRow>(LIST_AFTER, [new Date(after[0]!).toISOString(), after[1], page.limit + 1])
        : sql<MarketMachineRow>(LIST_FIRST, [page.limit + 1]),
    );
    return createdAtPage(rows, page);
  }

  create(tx: MarketsTx, data: Prisma.MarketMachineUncheckedCreateInput): Promise<MarketMachineRow> {
    return tx.marketMachine.create({ data });
  }

  update(tx: MarketsTx, id: string, data: Prisma.MarketMachineUncheckedUpdateInput): Promise<MarketMachineRow> {
    return tx.marketMachine.update({ where: { id }, data });
  }
}
