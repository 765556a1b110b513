-- DropIndex
DROP INDEX "market_audit_event_actor_type_actor_id_id_idx";

-- DropIndex
DROP INDEX "market_audit_event_kind_id_idx";

-- DropIndex
DROP INDEX "market_audit_event_machine_id_id_idx";

-- CreateIndex
CREATE INDEX "market_audit_event_machine_id_occurred_at_id_idx" ON "market_audit_event"("machine_id", "occurred_at", "id");

-- CreateIndex
CREATE INDEX "market_audit_event_kind_occurred_at_id_idx" ON "market_audit_event"("kind", "occurred_at", "id");

-- CreateIndex
CREATE INDEX "market_audit_event_actor_type_occurred_at_id_idx" ON "market_audit_event"("actor_type", "occurred_at", "id");

-- CreateIndex
CREATE INDEX "market_audit_event_actor_id_occurred_at_id_idx" ON "market_audit_event"("actor_id", "occurred_at", "id");

-- CreateIndex
CREATE INDEX "market_audit_event_machine_id_kind_occurred_at_id_idx" ON "market_audit_event"("machine_id", "kind", "occurred_at", "id");
