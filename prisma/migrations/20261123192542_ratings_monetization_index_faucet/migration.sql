-- AlterTable
ALTER TABLE "monetization_decision" DROP CONSTRAINT "monetization_decision_pkey",
ADD COLUMN     "deployment" TEXT NOT NULL DEFAULT 'v1',
ADD CONSTRAINT "monetization_decision_pkey" PRIMARY KEY ("deployment", "machine_id");

-- CreateTable
CREATE TABLE "ratings_ownership" (
    "token_id" TEXT NOT NULL,
    "machine_id" TEXT,
    "owner_address" TEXT,

    CONSTRAINT "ratings_ownership_pkey" PRIMARY KEY ("token_id")
);

-- CreateTable
CREATE TABLE "ratings_sync_cursor" (
    "name" TEXT NOT NULL,
    "block" BIGINT NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "ratings_sync_cursor_pkey" PRIMARY KEY ("name")
);

-- CreateTable
CREATE TABLE "faucet_two_factor" (
    "owner_address" TEXT NOT NULL,
    "secret_cipher" BYTEA NOT NULL,
    "status" TEXT NOT NULL,
    "enrolled_at" TIMESTAMPTZ(3) NOT NULL,
    "expires_at" TIMESTAMPTZ(3),
    "confirmed_at" TIMESTAMPTZ(3),
    "failed_attempts" INTEGER NOT NULL DEFAULT 0,
    "locked_until" TIMESTAMPTZ(3),
    "last_used_step" BIGINT,

    CONSTRAINT "faucet_two_factor_pkey" PRIMARY KEY ("owner_address")
);

-- CreateTable
CREATE TABLE "faucet_request" (
    "request_id" TEXT NOT NULL,
    "owner_address" TEXT NOT NULL,
    "target_wallet" TEXT NOT NULL,
    "chain_id" TEXT NOT NULL,
    "client_ip" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "tx_hash" TEXT,
    "funded_amount" TEXT,
    "failure_code" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "faucet_request_pkey" PRIMARY KEY ("request_id")
);

-- CreateIndex
CREATE UNIQUE INDEX "ratings_ownership_machine_id_key" ON "ratings_ownership"("machine_id");

-- CreateIndex
CREATE INDEX "ratings_ownership_owner_address_idx" ON "ratings_ownership"("owner_address");

-- CreateIndex
CREATE INDEX "faucet_request_owner_address_created_at_idx" ON "faucet_request"("owner_address", "created_at");

-- CreateIndex
CREATE INDEX "faucet_request_target_wallet_created_at_idx" ON "faucet_request"("target_wallet", "created_at");

-- CreateIndex
CREATE INDEX "faucet_request_client_ip_created_at_idx" ON "faucet_request"("client_ip", "created_at");
