-- Machine sessions: the machine's authority for its writes (docs/markets-identity.md "Machine sessions").
-- CreateTable
CREATE TABLE "market_machine_session" (
    "id" TEXT NOT NULL,
    "machine_id" TEXT NOT NULL,
    "controller_address" TEXT NOT NULL,
    "issued_at" TIMESTAMPTZ(3) NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "revoked_at" TIMESTAMPTZ(3),
    "revoked_reason" TEXT,

    CONSTRAINT "market_machine_session_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "market_machine_session_machine_id_issued_at_idx" ON "market_machine_session"("machine_id", "issued_at");

-- CreateIndex
CREATE INDEX "market_machine_session_expires_at_idx" ON "market_machine_session"("expires_at");

-- AddForeignKey
ALTER TABLE "market_machine_session" ADD CONSTRAINT "market_machine_session_machine_id_fkey" FOREIGN KEY ("machine_id") REFERENCES "market_machine"("id") ON DELETE CASCADE ON UPDATE CASCADE;
