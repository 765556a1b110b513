-- Expiry of unpaid stream orders and purchases, and recovery of executions past their deadline: the claim on
-- `executing` records its deadline, and the lifecycle job finds due rows by (status, time). No transition trigger
-- changes: payment_pending -> expired and executing -> failed were already legal.
-- AlterTable
ALTER TABLE "market_order" ADD COLUMN     "executing_deadline" TIMESTAMPTZ(3);

-- AlterTable
ALTER TABLE "markets_task" ADD COLUMN     "executing_deadline" TIMESTAMPTZ(3);

-- CreateIndex
CREATE INDEX "market_order_status_executing_deadline_idx" ON "market_order"("status", "executing_deadline");

-- CreateIndex
CREATE INDEX "markets_task_status_executing_deadline_idx" ON "markets_task"("status", "executing_deadline");

-- CreateIndex
CREATE INDEX "stream_order_status_created_at_idx" ON "stream_order"("status", "created_at");

-- CreateIndex
CREATE INDEX "stream_purchase_status_created_at_idx" ON "stream_purchase"("status", "created_at");
