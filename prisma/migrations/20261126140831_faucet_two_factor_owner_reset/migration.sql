-- AlterTable
ALTER TABLE "faucet_two_factor" ADD COLUMN     "owner_signed" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "reset_issued_at" TIMESTAMPTZ(3);

-- CreateTable
CREATE TABLE "faucet_two_factor_failure" (
    "owner_address" TEXT NOT NULL,
    "client_bucket" TEXT NOT NULL,
    "failed_attempts" INTEGER NOT NULL DEFAULT 0,
    "locked_until" TIMESTAMPTZ(3),

    CONSTRAINT "faucet_two_factor_failure_pkey" PRIMARY KEY ("owner_address","client_bucket")
);

-- AddForeignKey
ALTER TABLE "faucet_two_factor_failure" ADD CONSTRAINT "faucet_two_factor_failure_owner_address_fkey" FOREIGN KEY ("owner_address") REFERENCES "faucet_two_factor"("owner_address") ON DELETE CASCADE ON UPDATE CASCADE;
