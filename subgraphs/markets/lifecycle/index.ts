/**
 * The lifecycle family: the background job that closes states nobody leaves by themselves (unpaid stream orders and
 * purchases expire; executions past their deadline are recovered). The expiry and recovery steps live with their rows
 * (common/payment.expiry.ts with stream/orders/stream-order.expiry.ts and stream/purchases/purchase.expiry.ts, orders/order.recovery.ts,
 * work/task.service.ts), which also run them lazily on the next call; this folder only schedules the sweep.
 */
import type { Clock } from "../../shared/clock.js";
import type { BackgroundJob, SubgraphRuntime } from "../../shared/runtime.js";
import type { MarketsStore } from "../common/store.js";
import type { OrderRecovery } from "../orders/order.recovery.js";
import type { TaskService } from "../work/task.service.js";
import { describeSweep, LifecycleSweep, type SweepCounts } from "./lifecycle.sweep.js";

export { LifecycleSweep, describeSweep, type SweepCounts };

export function buildLifecycleSweep(runtime: SubgraphRuntime, store: MarketsStore, tasks: TaskService, orders: OrderRecovery, clock: Clock): LifecycleSweep {
  const work = runtime.config.marketsWork;
  return new LifecycleSweep(store, tasks, orders, {
    streamOrderPaymentTtlSeconds: work.streamOrderPaymentTtlSeconds,
    streamPurchasePaymentTtlSeconds: work.streamPurchasePaymentTtlSeconds,
  }, clock);
}

/** The job every markets process runs (MARKETS_LIFECYCLE_SWEEP_INTERVAL_MS; 0: tests run `lifecycle.run()` on demand). */
export function lifecycleJob(runtime: SubgraphRuntime, sweep: LifecycleSweep): BackgroundJob {
  return {
    name: "lifecycle sweep",
    intervalMs: runtime.config.marketsWork.lifecycleSweepIntervalMs,
    run: () => sweep.run(),
    describe: (result) => describeSweep(result as SweepCounts),
  };
}
