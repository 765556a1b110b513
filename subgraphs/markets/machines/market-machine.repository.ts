/** Machine records (model MarketMachine) and their GraphQL shape. */
import type { MarketMachine as MarketMachineRow } from "../../shared/db/generated/client.js";
import { Prisma } from "../../shared/db/index.js";
import type { MarketsTx } from "../common/audit.repository.js";
import { MarketMachine, MarketMachineStatus, type MachineIdentityProof } from "./market-machine.type.js";
import { type PageRequest, createdAtKeyset, createdAtPage } from "../common/pagination.js";
import type { MarketsStore } from "../common/store.js";

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

export class MarketMachineRepository {
  constructor(private readonly store: MarketsStore) {}

  find(id: string): Promise<MarketMachineRow | null> {
    return this.store.read((prisma) => prisma.marketMachine.findUnique({ where: { id } }));
  }

  findByOnChainId(onChainMachineId: string): Promise<MarketMachineRow | null> {
    return this.store.read((prisma) => prisma.marketMachine.findUnique({ where: { onChainMachineId } }));
  }

  /** Records with a stored identity proof, oldest first (keyset on createdAt, id). */
  async listWithProof(page: PageRequest): Promise<{ items: MarketMachineRow[]; nextCursor: string | null }> {
    const where: Prisma.MarketMachineWhereInput = { identityProof: { not: Prisma.DbNull } };
    const keyset = createdAtKeyset(page);
    const rows = await this.store.read((prisma) =>
      prisma.marketMachine.findMany({
        where: { ...where, ...keyset.where },
        orderBy: keyset.orderBy,
        take: keyset.take,
      }),
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
