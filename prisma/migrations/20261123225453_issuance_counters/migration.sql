-- AlterTable
ALTER TABLE "verify_challenge" ADD COLUMN     "cap_shard" INTEGER NOT NULL DEFAULT 0;

-- CreateTable
CREATE TABLE "verify_issuance_counter" (
    "scope" TEXT NOT NULL,
    "open" INTEGER NOT NULL,

    CONSTRAINT "verify_issuance_counter_pkey" PRIMARY KEY ("scope")
);

-- CreateIndex
CREATE INDEX "verify_challenge_cap_shard_state_expires_at_idx" ON "verify_challenge"("cap_shard", "state", "expires_at");

-- Counters start as upper bounds of the challenges open now (expiry ignored: an overcount only triggers a recount).
INSERT INTO "verify_issuance_counter" ("scope", "open")
SELECT 'machine:' || "machine_id", count(*)::int FROM "verify_challenge"
WHERE "state" IN ('issued', 'checking') GROUP BY "machine_id";

INSERT INTO "verify_issuance_counter" ("scope", "open")
SELECT 'total:00', count(*)::int FROM "verify_challenge" WHERE "state" IN ('issued', 'checking');
