-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateTable
CREATE TABLE "verify_challenge" (
    "id" UUID NOT NULL,
    "nonce_hash" TEXT NOT NULL,
    "machine_id" TEXT NOT NULL,
    "machine_did" TEXT NOT NULL,
    "did_controller" TEXT NOT NULL,
    "chain_id" TEXT NOT NULL,
    "profile" TEXT NOT NULL,
    "protocol" TEXT NOT NULL,
    "verifier" TEXT NOT NULL,
    "issued_at" TIMESTAMPTZ(3) NOT NULL,
    "expires_at" BIGINT NOT NULL,
    "state" TEXT NOT NULL DEFAULT 'issued',
    "submission_hash" TEXT,
    "checking_until" TIMESTAMPTZ(3),
    "receipt_id" UUID,
    "reject_reason" TEXT,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "verify_challenge_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "verify_evidence" (
    "receipt_id" UUID NOT NULL,
    "challenge_id" UUID NOT NULL,
    "machine_id" TEXT NOT NULL,
    "chip_ref" TEXT NOT NULL,
    "evidence_hash" TEXT NOT NULL,
    "body" TEXT NOT NULL,
    "accepted_at" TIMESTAMPTZ(3) NOT NULL,
    "attestation_uid" TEXT,
    "attested_at" TIMESTAMPTZ(3),

    CONSTRAINT "verify_evidence_pkey" PRIMARY KEY ("receipt_id")
);

-- CreateTable
CREATE TABLE "monetization_decision" (
    "machine_id" TEXT NOT NULL,
    "opted_in" BOOLEAN NOT NULL,
    "signer" TEXT NOT NULL,
    "timestamp" BIGINT NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "monetization_decision_pkey" PRIMARY KEY ("machine_id")
);

-- CreateTable
CREATE TABLE "markets_machine" (
    "machine_id" TEXT NOT NULL,
    "identity_ref" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "registered_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "markets_machine_pkey" PRIMARY KEY ("machine_id")
);

-- CreateIndex
CREATE UNIQUE INDEX "verify_challenge_nonce_hash_key" ON "verify_challenge"("nonce_hash");

-- CreateIndex
CREATE UNIQUE INDEX "verify_challenge_receipt_id_key" ON "verify_challenge"("receipt_id");

-- CreateIndex
CREATE INDEX "verify_challenge_machine_id_state_expires_at_idx" ON "verify_challenge"("machine_id", "state", "expires_at");

-- CreateIndex
CREATE INDEX "verify_challenge_state_expires_at_idx" ON "verify_challenge"("state", "expires_at");

-- CreateIndex
CREATE UNIQUE INDEX "verify_evidence_challenge_id_key" ON "verify_evidence"("challenge_id");

-- CreateIndex
CREATE INDEX "verify_evidence_attested_at_accepted_at_idx" ON "verify_evidence"("attested_at", "accepted_at");

-- CreateIndex
CREATE INDEX "verify_evidence_machine_id_idx" ON "verify_evidence"("machine_id");

-- AddForeignKey
ALTER TABLE "verify_evidence" ADD CONSTRAINT "verify_evidence_challenge_id_fkey" FOREIGN KEY ("challenge_id") REFERENCES "verify_challenge"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
