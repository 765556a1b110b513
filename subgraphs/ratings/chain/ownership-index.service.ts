/**
 * The 2.0 deployment's ownership index: which account owns which MachineRegistry machine, synced from the chain's
 * logs (MachineRegistry `MachineRegistered` ties a token to a machine, MachineNFT `Transfer` moves it) up to the
 * finalized block, never past it. The operator route reads it; while it is more than MCR2_INDEX_MAX_LAG_BLOCKS behind
 * the finalized block it answers 503 naming both block numbers.
 */
import { getAddress } from "ethers";
import type { Clock } from "../../shared/clock.js";
import type { RatingsChain } from "./ratings-chain.js";
import type { OwnershipChange, OwnershipIndexRepository } from "./ownership-index.repository.js";

export interface SyncPosition {
  syncedBlock: number;
  finalizedBlock: number;
}

/** Steps per job run, so a long catch-up yields between runs. */
const MAX_STEPS_PER_RUN = 50;

export class OwnershipIndexService {
  private running: Promise<SyncPosition> | null = null;

  constructor(
    private readonly chain: RatingsChain,
    private readonly repository: OwnershipIndexRepository,
    private readonly batchBlocks: number,
    private readonly clock: Clock,
  ) {}

  /** Applies at most one batch of blocks; returns the position after it. */
  async syncStep(): Promise<SyncPosition> {
    const [syncedBlock, finalizedBlock] = await Promise.all([this.repository.syncedBlock(), this.chain.blockNumber("finalized")]);
    if (syncedBlock >= finalizedBlock) return { syncedBlock, finalizedBlock };
    const toBlock = Math.min(finalizedBlock, syncedBlock + this.batchBlocks);
    const [registrations, transfers] = await Promise.all([
      this.chain.decodedLogs("MachineRegistry", "MachineRegistered", syncedBlock + 1, toBlock),
      this.chain.decodedLogs("MachineNFT", "Transfer", syncedBlock + 1, toBlock),
    ]);
    const changes: Array<OwnershipChange & { order: number }> = [
      ...registrations.map((log) => ({
        tokenId: (log.args.tokenId as bigint).toString(),
        machineId: (log.args.machineId as bigint).toString(),
        order: log.block * 1e6 + log.logIndex,
      })),
      ...transfers.map((log) => ({
        tokenId: (log.args.tokenId as bigint).toString(),
        ownerAddress: getAddress(log.args.to as string),
        order: log.block * 1e6 + log.logIndex,
      })),
    ].sort((a, b) => a.order - b.order);
    const applied = await this.repository.apply(syncedBlock, toBlock, changes.map(({ order: _o, ...change }) => change), new Date(this.clock.now()));
    return { syncedBlock: applied ? toBlock : await this.repository.syncedBlock(), finalizedBlock };
  }

  /** The job: steps until caught up (or MAX_STEPS_PER_RUN). A run already going is joined, not doubled. */
  sync(): Promise<SyncPosition> {
    this.running ??= this.steps().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  /** Resolves once no run is going (at shutdown, before the database and the chain reader close). */
  async idle(): Promise<void> {
    await this.running?.catch(() => {});
  }

  private async steps(): Promise<SyncPosition> {
    let position = await this.syncStep();
    for (let step = 1; step < MAX_STEPS_PER_RUN && position.syncedBlock < position.finalizedBlock; step++) {
      position = await this.syncStep();
    }
    return position;
  }

  async position(): Promise<SyncPosition> {
    const [syncedBlock, finalizedBlock] = await Promise.all([this.repository.syncedBlock(), this.chain.blockNumber("finalized")]);
    return { syncedBlock, finalizedBlock };
  }

  machinesOf(owner: string, offset: number, limit: number) {
    return this.repository.machinesOf(owner, offset, limit);
  }
}
