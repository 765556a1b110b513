/**
 * The markets subgraph's database access: one place that opens transactions, so every state change and its audit
 * event commit together, and infrastructure failures become SERVICE_UNAVAILABLE (retry) for the client.
 */
import type { Database } from "../../shared/db/index.js";
import { inStore } from "../../shared/db/in-store.js";
import { prismaStatement, type SqlStatement } from "../../shared/db/sql-session.js";
import type { MarketsTx } from "./audit.repository.js";
import type { MarketsSql } from "./sql.js";
import { MarketsErrors } from "./errors.js";
import type { MachineGuard } from "./machine.guard.js";
import type { MarketMachine } from "../../shared/db/generated/client.js";

export class MarketsStore {
  /**
   * Runs at the end of every write transaction, after the change and its audit event were written and before the
   * commit. Tests set it to throw, proving neither survives a failure; production never sets it.
   */
  beforeCommit: (() => Promise<void> | void) | null = null;

  /**
   * Runs inside a stream order's or purchase's creating transaction right after the listing was read under its share
   * lock (stream/seller/listing.lock.ts). Tests hold a creation there with a barrier; production never sets it.
   */
  afterListingRead: ((listingId: string) => Promise<void>) | null = null;

  constructor(
    readonly db: Database,
    private readonly log: (error: unknown) => void,
    /** Global rule 1 (machine.guard.ts), for every family's writes and guarded reads. */
    readonly guard: MachineGuard,
  ) {}

  /** Global rule 1 for `machineId`, read with `tx` (a transaction, or the client for a guarded read). */
  requireActiveMachine(tx: MarketsSql, machineId: string): Promise<MarketMachine> {
    return this.guard.require(tx, machineId);
  }

  /** A read outside any transaction. */
  read<T>(step: (prisma: Database["prisma"]) => Promise<T>): Promise<T> {
    return inStore(() => step(this.db.prisma), MarketsErrors.storeUnavailable, this.log);
  }

  /**
   * One read-only statement outside any transaction, shared with identical reads arriving while one runs
   * (Database.read): the public lists' hot reads. The rows are frozen; copy one before changing it.
   */
  sharedRead<T>(work: (sql: SqlStatement) => Promise<T>): Promise<T> {
    return inStore(() => work(this.db.read), MarketsErrors.storeUnavailable, this.log);
  }

  /**
   * One statement that is its own transaction (the heartbeat's data-modifying CTE: its change and its audit event
   * commit together). With `beforeCommit` set (tests only) it runs inside a transaction followed by the hook, so the
   * injected-failure test proves the same statement leaves neither the change nor its event.
   */
  statement<T>(work: (sql: SqlStatement) => Promise<T>): Promise<T> {
    if (this.beforeCommit) return this.write((tx) => work(prismaStatement(tx)));
    return inStore(() => work(this.db.statement), MarketsErrors.storeUnavailable, this.log);
  }

  /**
   * A write transaction of plain SQL statements (Database.transaction): the change, its audit event
   * (auditEventsStatement), then the commit; `beforeCommit` runs before the commit as in `write`. For the hot writes
   * whose every statement is fixed SQL; a write that needs Prisma's models uses `write`.
   */
  sqlWrite<T>(work: (sql: SqlStatement) => Promise<T>): Promise<T> {
    return inStore(
      () =>
        this.db.transaction(async (sql) => {
          const result = await work(sql);
          await this.beforeCommit?.();
          return result;
        }),
      MarketsErrors.storeUnavailable,
      this.log,
    );
  }

  /** A write transaction: the change, its audit event (recordAuditEvent), then the commit. */
  write<T>(work: (tx: MarketsTx) => Promise<T>): Promise<T> {
    return inStore(
      () =>
        this.db.prisma.$transaction(async (tx) => {
          const result = await work(tx);
          await this.beforeCommit?.();
          return result;
        }),
      MarketsErrors.storeUnavailable,
      this.log,
    );
  }
}
