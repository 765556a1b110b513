/**
 * MCR scorecards: the machine's inputs read from the chain (events in pages of 100, bond, override, flag), scored by
 * scoring/mcr-score.ts, and cached per machine (docs/mcr-scoring.md, "Caching").
 *
 * The cache follows the chain: each new head the block watcher reports triggers one log scan over the new blocks,
 * and a machine with a new `EventSubmitted` log loses its entry. An entry is served only when it was read at or after
 * the machine's latest event block and, unless it was read at the current head, the scan has reached that head; a
 * failed scan invalidates everything read before it.
 */
import type { Clock } from "../../shared/clock.js";
import type { RatingsChain } from "../chain/ratings-chain.js";
import type { RateSource } from "./fx.js";
import { scoreMachine, type McrScore } from "./mcr-score.js";

interface CacheEntry {
  score: McrScore;
  /** Block the inputs were read at. */
  block: number;
  expiresAtMs: number;
}

/** Bounds the cache so a scan over many machine IDs cannot grow it without limit. */
const MAX_CACHED_MACHINES = 50_000;

export class McrService {
  private readonly cache = new Map<string, CacheEntry>();
  private readonly inFlight = new Map<string, Promise<McrScore>>();
  /** Logs are scanned through this block. */
  private scannedThrough: number | null = null;
  /** Per machine, the latest block holding one of its events (from the scans). */
  private readonly lastEventBlock = new Map<string, number>();
  /** Entries read before this block are never served (the scan could not tell what changed). */
  private floorBlock = 0;

  constructor(
    private readonly chain: RatingsChain,
    private readonly rates: RateSource,
    private readonly clock: Clock,
    private readonly ttlSeconds: number,
    private readonly log: (error: unknown) => void,
  ) {}

  /** Wire to `ChainReader.onNewHead`. */
  readonly onNewHead = (previous: number | null, current: number): void => {
    if (previous === null || current < previous) return this.forgetBefore(current);
    this.chain.machinesWithNewEvents(previous + 1, current).then(
      (machines) => {
        if (this.lastEventBlock.size + machines.size > MAX_CACHED_MACHINES) return this.forgetBefore(current);
        for (const [machineId, block] of machines) {
          this.cache.delete(machineId);
          this.lastEventBlock.set(machineId, Math.max(block, this.lastEventBlock.get(machineId) ?? 0));
        }
        if (this.scannedThrough === null || this.scannedThrough < current) this.scannedThrough = current;
      },
      (error) => {
        // Without the logs nothing cached can be trusted.
        this.log(error);
        this.forgetBefore(current);
      },
    );
  };

  private forgetBefore(block: number): void {
    this.cache.clear();
    this.lastEventBlock.clear();
    this.floorBlock = Math.max(this.floorBlock, block);
    this.scannedThrough = block;
  }

  /** The scorecard of a machine; chain failures propagate (the caller maps them). */
  score(machineId: bigint): Promise<McrScore> {
    const key = machineId.toString();
    const cached = this.cache.get(key);
    if (cached && this.isCurrent(key, cached)) return Promise.resolve(cached.score);
    let pending = this.inFlight.get(key);
    if (!pending) {
      pending = this.compute(machineId).finally(() => this.inFlight.delete(key));
      this.inFlight.set(key, pending);
    }
    return pending;
  }

  private isCurrent(key: string, entry: CacheEntry): boolean {
    if (this.clock.now() >= entry.expiresAtMs) return false;
    if (entry.block < this.floorBlock || entry.block < (this.lastEventBlock.get(key) ?? 0)) return false;
    const pinned = this.chain.pinnedBlock;
    return pinned === null || entry.block >= pinned || (this.scannedThrough !== null && this.scannedThrough >= pinned);
  }

  private async compute(machineId: bigint): Promise<McrScore> {
    const block = this.chain.pinnedBlock;
    const count = await this.chain.eventCount(machineId);
    const [events, bonded, trustOverride, flaggedAt] = await Promise.all([
      this.chain.events(machineId, 0, count),
      this.chain.isStaked(machineId),
      this.chain.trustOverride(machineId),
      this.chain.flaggedAt(machineId),
    ]);
    const nowMs = this.clock.now();
    const score = scoreMachine({ events, bonded, trustOverride, flaggedAt, nowSeconds: Math.floor(nowMs / 1000), rates: this.rates });
    if (this.ttlSeconds > 0 && !score.mcrDegraded && block !== null) {
      if (this.cache.size >= MAX_CACHED_MACHINES) this.cache.clear();
      this.cache.set(machineId.toString(), { score, block, expiresAtMs: nowMs + this.ttlSeconds * 1000 });
    }
    return score;
  }
}
