-- DropIndex
DROP INDEX "market_machine_on_chain_machine_id_idx";

-- CreateIndex
CREATE UNIQUE INDEX "market_machine_on_chain_machine_id_key" ON "market_machine"("on_chain_machine_id");
