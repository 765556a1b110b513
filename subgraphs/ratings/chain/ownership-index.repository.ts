/**
 * The 2.0 ownership index in the database (model RatingsOwnership, cursor in RatingsSyncCursor). A sync step applies
 * the logs of a block range and advances the cursor in one transaction, with the cursor row locked and checked, so
 * replicas running the same job never apply a range twice or move the cursor backwards.
 */
import { toStoreError, type Database } from "../../shared/db/index.js";

export const OWNERSHIP_CURSOR = "v2-ownership";

export interface OwnershipChange {
  tokenId: string;
  machineId?: string;
  ownerAddress?: string;
}

export class OwnershipIndexRepository {
  constructor(private readonly db: Database) {}

  /** The last applied block (0 before the first step: block 0 holds none of the indexed logs). */
  async syncedBlock(): Promise<number> {
    try {
      const cursor = await this.db.prisma.ratingsSyncCursor.findUnique({ where: { name: OWNERSHIP_CURSOR } });
      return cursor ? Number(cursor.block) : 0;
    } catch (error) {
      throw toStoreError(error);
    }
  }

  /** Applies changes (in chain order) for `(fromBlock, toBlock]` if the cursor still stands at `fromBlock`. */
  async apply(fromBlock: number, toBlock: number, changes: readonly OwnershipChange[], now: Date): Promise<boolean> {
    try {
      return await this.db.prisma.$transaction(async (tx) => {
        await tx.$executeRaw`
          INSERT INTO ratings_sync_cursor (name, block, updated_at) VALUES (${OWNERSHIP_CURSOR}, 0, ${now})
          ON CONFLICT (name) DO NOTHING`;
        const [cursor] = await tx.$queryRaw<Array<{ block: bigint }>>`
          SELECT block FROM ratings_sync_cursor WHERE name = ${OWNERSHIP_CURSOR} FOR UPDATE`;
        if (Number(cursor!.block) !== fromBlock) return false;
        for (const change of changes) {
          await tx.ratingsOwnership.upsert({
            where: { tokenId: change.tokenId },
            create: { tokenId: change.tokenId, machineId: change.machineId ?? null, ownerAddress: change.ownerAddress ?? null },
            update: {
              ...(change.machineId !== undefined ? { machineId: change.machineId } : {}),
              ...(change.ownerAddress !== undefined ? { ownerAddress: change.ownerAddress } : {}),
            },
          });
        }
        await tx.ratingsSyncCursor.update({ where: { name: OWNERSHIP_CURSOR }, data: { block: BigInt(toBlock), updatedAt: now } });
        return true;
      });
    } catch (error) {
      throw toStoreError(error);
    }
  }

  /** Machines whose NFT `owner` holds, ordered by machine ID, and how many there are. */
  async machinesOf(owner: string, offset: number, limit: number): Promise<{ total: number; machineIds: string[] }> {
    try {
      const where = { ownerAddress: owner, machineId: { not: null } };
      const [total, rows] = await Promise.all([
        this.db.prisma.ratingsOwnership.count({ where }),
        this.db.prisma.$queryRaw<Array<{ machineId: string }>>`
          SELECT machine_id AS "machineId" FROM ratings_ownership
          WHERE owner_address = ${owner} AND machine_id IS NOT NULL
          ORDER BY length(machine_id), machine_id OFFSET ${offset} LIMIT ${limit}`,
      ]);
      return { total, machineIds: rows.map((row) => row.machineId) };
    } catch (error) {
      throw toStoreError(error);
    }
  }
}
