-- One transfer pays one thing (docs/markets-payments.md "Spent transactions"): every payment that rests on a chain
-- transfer (market payments, stream orders, stream purchases) writes its (chain, transaction, Transfer log) here in the
-- same database transaction as the payment; the primary key refuses a second claim of the same transfer. A stream
-- order or purchase also binds, when it is created, the address whose transfer may pay it.

-- AlterTable
ALTER TABLE "stream_order" ADD COLUMN     "payer_address" TEXT;

-- AlterTable
ALTER TABLE "stream_purchase" ADD COLUMN     "payer_address" TEXT;

-- CreateTable
CREATE TABLE "spent_transaction" (
    "chain_id" TEXT NOT NULL,
    "tx_hash" TEXT NOT NULL,
    "log_index" INTEGER NOT NULL,
    "kind" TEXT NOT NULL,
    "paid_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "spent_transaction_pkey" PRIMARY KEY ("chain_id","tx_hash","log_index")
);

-- CreateIndex
CREATE INDEX "spent_transaction_paid_id_idx" ON "spent_transaction"("paid_id");

-- Backfill: the transfers existing payments rest on. The Transfer log's index where the stored proof names it, else
-- -1 (the whole transaction). A transaction that paid twice before this table (the reuse it now refuses) keeps its
-- first payment's row.
INSERT INTO "spent_transaction" ("chain_id", "tx_hash", "log_index", "kind", "paid_id", "created_at")
SELECT "chain_id", lower("tx_hash"),
       COALESCE(("details"->'proof'->>'logIndex')::int, ("details"->'settlement'->>'logIndex')::int, -1),
       'market_payment', "id", "updated_at"
FROM "market_payment"
WHERE "tx_hash" IS NOT NULL AND "chain_id" IS NOT NULL
ON CONFLICT DO NOTHING;

INSERT INTO "spent_transaction" ("chain_id", "tx_hash", "log_index", "kind", "paid_id", "created_at")
SELECT "payment_proof"->>'chainId', lower("payment_tx_hash"), COALESCE(("payment_proof"->>'logIndex')::int, -1),
       'stream_order', "id", COALESCE("paid_at", "updated_at")
FROM "stream_order"
WHERE "payment_tx_hash" IS NOT NULL AND "payment_proof"->>'chainId' IS NOT NULL
ON CONFLICT DO NOTHING;

INSERT INTO "spent_transaction" ("chain_id", "tx_hash", "log_index", "kind", "paid_id", "created_at")
SELECT "payment_proof"->>'chainId', lower("payment_tx_hash"), COALESCE(("payment_proof"->'details'->>'logIndex')::int, -1),
       'stream_purchase', "id", COALESCE("paid_at", "updated_at")
FROM "stream_purchase"
WHERE "payment_tx_hash" IS NOT NULL AND "payment_proof"->>'chainId' IS NOT NULL
ON CONFLICT DO NOTHING;

-- A purchase's payer is its pairing's agent.
UPDATE "stream_purchase" p SET "payer_address" = a."agent_address"
FROM "market_agent_pairing" a
WHERE p."agent_pairing_id" = a."id" AND p."payer_address" IS NULL;
