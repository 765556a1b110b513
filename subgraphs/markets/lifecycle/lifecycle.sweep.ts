/**
 * The lifecycle job (docs/stream-marketplace.md "Expiry", docs/markets-orders.md "Execution deadline"): each run
 * expires unpaid stream orders and purchases, recovers market orders and tasks executing past their deadline and
 * completes the escrow refunds of recovered orders whose first send failed, then logs one line with the counts. Every
 * process runs it (MARKETS_LIFECYCLE_SWEEP_INTERVAL_MS); replicas on one PostgreSQL share the work safely: expiry
 * batches lock their rows FOR UPDATE SKIP LOCKED and re-check them, each recovery re-checks its row under the row
 * lock, and a refund retry takes its claim with a conditional update first, so a row changes, with its one audit
 * event, once.
 */
import type { Clock } from "../../shared/clock.js";
import type { MarketsStore } from "../common/store.js";
import type { MarketsTx } from "../common/audit.repository.js";
import type { OrderRecovery } from "../orders/order.recovery.js";
import { SWEEP_BATCH } from "../common/payment.expiry.js";
import { sweepStreamOrders } from "../stream/orders/stream-order.expiry.js";
import { sweepPurchases } from "../stream/purchases/purchase.expiry.js";
import type { TaskService } from "../work/task.service.js";

/** Batches of one kind one run handles at most; the rest waits for the next run. */
const MAX_BATCHES = 20;

export interface SweepCounts {
  streamOrdersExpired: number;
  purchasesExpired: number;
  ordersRecovered: number;
  /** Escrow refunds of recovered orders whose first send failed, completed by this run. */
  refundsCompleted: number;
  tasksRecovered: number;
}

export interface LifecycleSettings {
  streamOrderPaymentTtlSeconds: number;
  streamPurchasePaymentTtlSeconds: number;
}

export class LifecycleSweep {
  constructor(
    private readonly store: MarketsStore,
    private readonly tasks: TaskService,
    private readonly orders: OrderRecovery,
    private readonly settings: LifecycleSettings,
    private readonly clock: Clock,
  ) {}

  async run(): Promise<SweepCounts> {
    const { streamOrderPaymentTtlSeconds: orderTtl, streamPurchasePaymentTtlSeconds: purchaseTtl } = this.settings;
    const streamOrdersExpired = await this.batches((tx, now) => sweepStreamOrders(tx, now, orderTtl));
    const purchasesExpired = await this.batches((tx, now) => sweepPurchases(tx, now, purchaseTtl));
    // Orders before tasks: an order's recovery ends its task with it.
    const ordersRecovered = await this.orders.sweep();
    const refundsCompleted = await this.orders.completeRefunds();
    const tasksRecovered = await this.sweepTasks();
    return { streamOrdersExpired, purchasesExpired, ordersRecovered, refundsCompleted, tasksRecovered };
  }

  private async batches(step: (tx: MarketsTx, now: Date) => Promise<number>): Promise<number> {
    let total = 0;
    for (let i = 0; i < MAX_BATCHES; i += 1) {
      const now = new Date(this.clock.now());
      const count = await this.store.write((tx) => step(tx, now));
      total += count;
      if (count < SWEEP_BATCH) break;
    }
    return total;
  }

  private async sweepTasks(): Promise<number> {
    const now = new Date(this.clock.now());
    const due = await this.store.read((prisma) =>
      prisma.marketsTask.findMany({
        where: { status: "executing", executingDeadline: { lte: now } },
        orderBy: [{ executingDeadline: "asc" }, { id: "asc" }],
        take: SWEEP_BATCH,
        select: { id: true },
      }),
    );
    let recovered = 0;
    for (const { id } of due) if (await this.tasks.repo.transaction((tx) => this.tasks.recoverInTx(tx, id, now))) recovered += 1;
    return recovered;
  }
}

/** The job's log line. */
export function describeSweep(counts: SweepCounts): string {
  return (
    `lifecycle sweep: ${counts.streamOrdersExpired} stream orders expired, ${counts.purchasesExpired} purchases expired, ` +
    `${counts.ordersRecovered} market orders recovered, ${counts.refundsCompleted} recovery refunds completed, ${counts.tasksRecovered} tasks recovered`
  );
}
