-- CreateTable
CREATE TABLE "market_machine" (
    "id" TEXT NOT NULL,
    "display_name" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "owner_id" TEXT NOT NULL,
    "identity_ref" TEXT,
    "on_chain_machine_id" TEXT,
    "identity_proof" JSONB,
    "identity_verified" BOOLEAN NOT NULL DEFAULT false,
    "machine_type" TEXT NOT NULL,
    "runtime_profile" TEXT NOT NULL,
    "capabilities" TEXT[],
    "policy_ids" TEXT[],
    "skill_keys" TEXT[],
    "labels" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "market_machine_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "market_identity_challenge" (
    "id" TEXT NOT NULL,
    "identity_ref" TEXT NOT NULL,
    "on_chain_machine_id" TEXT NOT NULL,
    "message" TEXT NOT NULL,
    "controller_addresses" TEXT[],
    "issued_at" TIMESTAMPTZ(3) NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "consumed_at" TIMESTAMPTZ(3),

    CONSTRAINT "market_identity_challenge_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "market_runtime_endpoint" (
    "machine_id" TEXT NOT NULL,
    "provider_key" TEXT NOT NULL,
    "source" TEXT NOT NULL,
    "endpoint_base_url" TEXT NOT NULL,
    "label" TEXT NOT NULL,
    "auth_type" TEXT NOT NULL,
    "auth_token_cipher" BYTEA,
    "model_alias" TEXT,
    "network_scope" TEXT,
    "probe_path" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "lease_expires_at" TIMESTAMPTZ(3),
    "agent_id" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "market_runtime_endpoint_pkey" PRIMARY KEY ("machine_id","provider_key")
);

-- CreateTable
CREATE TABLE "market_machine_agent" (
    "id" TEXT NOT NULL,
    "machine_id" TEXT NOT NULL,
    "label" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "token_hash" BYTEA NOT NULL,
    "allowed_provider_keys" TEXT[],
    "last_seen_at" TIMESTAMPTZ(3),
    "revoked_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "market_machine_agent_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "market_audit_event" (
    "id" BIGSERIAL NOT NULL,
    "kind" TEXT NOT NULL,
    "machine_id" TEXT,
    "actor_type" TEXT NOT NULL,
    "actor_id" TEXT,
    "occurred_at" TIMESTAMPTZ(3) NOT NULL,
    "data" JSONB NOT NULL,

    CONSTRAINT "market_audit_event_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "market_machine_identity_ref_key" ON "market_machine"("identity_ref");

-- CreateIndex
CREATE INDEX "market_machine_on_chain_machine_id_idx" ON "market_machine"("on_chain_machine_id");

-- CreateIndex
CREATE INDEX "market_machine_created_at_id_idx" ON "market_machine"("created_at", "id");

-- CreateIndex
CREATE INDEX "market_identity_challenge_expires_at_idx" ON "market_identity_challenge"("expires_at");

-- CreateIndex
CREATE UNIQUE INDEX "market_machine_agent_token_hash_key" ON "market_machine_agent"("token_hash");

-- CreateIndex
CREATE INDEX "market_machine_agent_machine_id_created_at_idx" ON "market_machine_agent"("machine_id", "created_at");

-- CreateIndex
CREATE INDEX "market_audit_event_machine_id_id_idx" ON "market_audit_event"("machine_id", "id");

-- CreateIndex
CREATE INDEX "market_audit_event_kind_id_idx" ON "market_audit_event"("kind", "id");

-- CreateIndex
CREATE INDEX "market_audit_event_actor_type_actor_id_id_idx" ON "market_audit_event"("actor_type", "actor_id", "id");

-- CreateIndex
CREATE INDEX "market_audit_event_occurred_at_id_idx" ON "market_audit_event"("occurred_at", "id");

-- AddForeignKey
ALTER TABLE "market_runtime_endpoint" ADD CONSTRAINT "market_runtime_endpoint_machine_id_fkey" FOREIGN KEY ("machine_id") REFERENCES "market_machine"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "market_machine_agent" ADD CONSTRAINT "market_machine_agent_machine_id_fkey" FOREIGN KEY ("machine_id") REFERENCES "market_machine"("id") ON DELETE CASCADE ON UPDATE CASCADE;
