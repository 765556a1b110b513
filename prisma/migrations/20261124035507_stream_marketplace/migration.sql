-- CreateTable
CREATE TABLE "stream_signing_key" (
    "id" TEXT NOT NULL,
    "machine_id" TEXT NOT NULL,
    "agent_id" TEXT NOT NULL,
    "key_id" TEXT NOT NULL,
    "public_key_hex" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "revoked_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "stream_signing_key_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "stream_policy" (
    "id" TEXT NOT NULL,
    "machine_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "topic_rules" JSONB NOT NULL,
    "buffer" JSONB NOT NULL,
    "payload" JSONB NOT NULL,
    "destinations" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "stream_policy_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "stream_event" (
    "id" TEXT NOT NULL,
    "machine_id" TEXT NOT NULL,
    "agent_id" TEXT NOT NULL,
    "policy_id" TEXT,
    "policy_version" INTEGER,
    "topic" TEXT NOT NULL,
    "sequence_number" BIGINT NOT NULL,
    "payload_hash" TEXT NOT NULL,
    "envelope" JSONB NOT NULL,
    "chain_tx_hash" TEXT,
    "chain_data_hash" TEXT,
    "chain_at" TIMESTAMPTZ(3),
    "received_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "stream_event_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "stream_chunk" (
    "chunk_id" TEXT NOT NULL,
    "machine_id" TEXT NOT NULL,
    "agent_id" TEXT NOT NULL,
    "key_id" TEXT NOT NULL,
    "index" INTEGER NOT NULL,
    "previous_chunk_id" TEXT,
    "plaintext_hash" TEXT NOT NULL,
    "encrypted_data_hash" TEXT NOT NULL,
    "encrypted_size" BIGINT NOT NULL,
    "storage_ref" TEXT,
    "stored_verified_at" TIMESTAMPTZ(3),
    "manifest" JSONB NOT NULL,
    "metadata" JSONB,
    "created_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "stream_chunk_pkey" PRIMARY KEY ("chunk_id")
);

-- CreateTable
CREATE TABLE "stream_listing" (
    "id" TEXT NOT NULL,
    "machine_id" TEXT NOT NULL,
    "identity_ref" TEXT,
    "title" TEXT NOT NULL,
    "topic" TEXT,
    "chunk_ids" TEXT[],
    "chunk_count" INTEGER NOT NULL,
    "total_bytes" BIGINT NOT NULL,
    "storage_provider" TEXT NOT NULL,
    "price_amount" TEXT NOT NULL,
    "price_currency" TEXT NOT NULL,
    "price_per_chunk" TEXT,
    "time_start" TIMESTAMPTZ(3),
    "time_end" TIMESTAMPTZ(3),
    "status" TEXT NOT NULL,
    "service_id" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "stream_listing_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "stream_buyer_access" (
    "id" TEXT NOT NULL,
    "chunk_id" TEXT NOT NULL,
    "machine_id" TEXT NOT NULL,
    "buyer_id" TEXT NOT NULL,
    "public_key_hex" TEXT NOT NULL,
    "wrapped_key_hex" TEXT NOT NULL,
    "order_id" TEXT,
    "purchase_id" TEXT,
    "access" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "stream_buyer_access_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "stream_order" (
    "id" TEXT NOT NULL,
    "listing_id" TEXT NOT NULL,
    "machine_id" TEXT NOT NULL,
    "buyer_id" TEXT NOT NULL,
    "buyer_public_key_hex" TEXT NOT NULL,
    "chunk_ids" TEXT[],
    "status" TEXT NOT NULL,
    "price_amount" TEXT NOT NULL,
    "price_currency" TEXT NOT NULL,
    "payment_reference" TEXT,
    "payment_proof" JSONB,
    "payment_tx_hash" TEXT,
    "paid_at" TIMESTAMPTZ(3),
    "access_prepared_at" TIMESTAMPTZ(3),
    "delivered_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "stream_order_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "stream_delivery_session" (
    "id" TEXT NOT NULL,
    "machine_id" TEXT NOT NULL,
    "order_id" TEXT,
    "purchase_id" TEXT,
    "mode" TEXT NOT NULL,
    "transport_id" TEXT,
    "status" TEXT NOT NULL,
    "delivery_url" TEXT,
    "message" TEXT,
    "handoff_hash" BYTEA,
    "handoff_expires_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "stream_delivery_session_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "stream_delivery_capability" (
    "machine_id" TEXT NOT NULL,
    "agent_id" TEXT NOT NULL,
    "capabilities" JSONB NOT NULL,
    "resource_types" TEXT[],
    "expires_at" TIMESTAMPTZ(3),
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "stream_delivery_capability_pkey" PRIMARY KEY ("machine_id")
);

-- CreateTable
CREATE TABLE "stream_purchase" (
    "id" TEXT NOT NULL,
    "listing_id" TEXT NOT NULL,
    "machine_id" TEXT NOT NULL,
    "agent_pairing_id" TEXT,
    "buyer_id" TEXT NOT NULL,
    "buyer_public_key_hex" TEXT NOT NULL,
    "buyer_capabilities" JSONB NOT NULL,
    "chunk_ids" TEXT[],
    "status" TEXT NOT NULL,
    "amount" TEXT NOT NULL,
    "currency" TEXT NOT NULL,
    "rail" TEXT,
    "payment_intent" JSONB,
    "payment_proof" JSONB,
    "payment_tx_hash" TEXT,
    "delivery" JSONB,
    "paid_at" TIMESTAMPTZ(3),
    "completed_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "stream_purchase_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "stream_purchase_event" (
    "id" TEXT NOT NULL,
    "purchase_id" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "actor" JSONB NOT NULL,
    "data" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "stream_purchase_event_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "stream_signing_key_machine_id_key_id_key" ON "stream_signing_key"("machine_id", "key_id");

-- CreateIndex
CREATE INDEX "stream_policy_machine_id_created_at_id_idx" ON "stream_policy"("machine_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "stream_event_machine_id_received_at_id_idx" ON "stream_event"("machine_id", "received_at", "id");

-- CreateIndex
CREATE UNIQUE INDEX "stream_event_machine_id_agent_id_topic_sequence_number_key" ON "stream_event"("machine_id", "agent_id", "topic", "sequence_number");

-- CreateIndex
CREATE INDEX "stream_chunk_machine_id_created_at_chunk_id_idx" ON "stream_chunk"("machine_id", "created_at", "chunk_id");

-- CreateIndex
CREATE INDEX "stream_listing_status_created_at_id_idx" ON "stream_listing"("status", "created_at", "id");

-- CreateIndex
CREATE INDEX "stream_listing_machine_id_created_at_id_idx" ON "stream_listing"("machine_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "stream_buyer_access_order_id_idx" ON "stream_buyer_access"("order_id");

-- CreateIndex
CREATE INDEX "stream_buyer_access_purchase_id_idx" ON "stream_buyer_access"("purchase_id");

-- CreateIndex
CREATE UNIQUE INDEX "stream_buyer_access_chunk_id_buyer_id_public_key_hex_key" ON "stream_buyer_access"("chunk_id", "buyer_id", "public_key_hex");

-- CreateIndex
CREATE UNIQUE INDEX "stream_order_payment_tx_hash_key" ON "stream_order"("payment_tx_hash");

-- CreateIndex
CREATE INDEX "stream_order_machine_id_created_at_id_idx" ON "stream_order"("machine_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "stream_order_listing_id_idx" ON "stream_order"("listing_id");

-- CreateIndex
CREATE UNIQUE INDEX "stream_delivery_session_handoff_hash_key" ON "stream_delivery_session"("handoff_hash");

-- CreateIndex
CREATE INDEX "stream_delivery_session_machine_id_status_created_at_idx" ON "stream_delivery_session"("machine_id", "status", "created_at");

-- CreateIndex
CREATE INDEX "stream_delivery_session_order_id_idx" ON "stream_delivery_session"("order_id");

-- CreateIndex
CREATE INDEX "stream_delivery_session_purchase_id_idx" ON "stream_delivery_session"("purchase_id");

-- CreateIndex
CREATE UNIQUE INDEX "stream_purchase_payment_tx_hash_key" ON "stream_purchase"("payment_tx_hash");

-- CreateIndex
CREATE INDEX "stream_purchase_machine_id_created_at_id_idx" ON "stream_purchase"("machine_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "stream_purchase_buyer_id_created_at_idx" ON "stream_purchase"("buyer_id", "created_at");

-- CreateIndex
CREATE INDEX "stream_purchase_event_purchase_id_created_at_id_idx" ON "stream_purchase_event"("purchase_id", "created_at", "id");

-- Status values and state machines of docs/stream-marketplace.md, enforced whatever the caller (hand-written: Prisma
-- does not model triggers; no CHECK constraints, see 20261124005841). The services keep the same tables for their
-- conditional updates; the stream state tests try every (from, to) pair against the database.
CREATE FUNCTION stream_simple_status() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.status = ANY (TG_ARGV) THEN RETURN NEW; END IF;
  RAISE EXCEPTION '% status must be one of %, not %', TG_TABLE_NAME, array_to_string(TG_ARGV, ', '), NEW.status USING ERRCODE = 'check_violation';
END $$;
CREATE TRIGGER stream_signing_key_status BEFORE INSERT OR UPDATE OF status ON "stream_signing_key"
  FOR EACH ROW EXECUTE FUNCTION stream_simple_status('active', 'revoked');
CREATE TRIGGER stream_policy_status BEFORE INSERT OR UPDATE OF status ON "stream_policy"
  FOR EACH ROW EXECUTE FUNCTION stream_simple_status('active', 'paused', 'archived');
CREATE TRIGGER stream_listing_status BEFORE INSERT OR UPDATE OF status ON "stream_listing"
  FOR EACH ROW EXECUTE FUNCTION stream_simple_status('active', 'inactive');

CREATE FUNCTION stream_order_transition() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    IF NEW.status <> 'payment_pending' THEN RAISE EXCEPTION 'stream order must start payment_pending, not %', NEW.status USING ERRCODE = 'check_violation'; END IF;
    RETURN NEW;
  END IF;
  IF NEW.status = OLD.status THEN RETURN NEW; END IF;
  IF (OLD.status, NEW.status) IN (
    ('payment_pending', 'paid'), ('payment_pending', 'cancelled'), ('payment_pending', 'expired'),
    ('paid', 'access_prepared'), ('access_prepared', 'delivered')
  ) THEN RETURN NEW; END IF;
  RAISE EXCEPTION 'illegal stream order transition % -> %', OLD.status, NEW.status USING ERRCODE = 'check_violation';
END $$;
CREATE TRIGGER stream_order_transition BEFORE INSERT OR UPDATE OF status ON "stream_order"
  FOR EACH ROW EXECUTE FUNCTION stream_order_transition();

CREATE FUNCTION stream_delivery_session_transition() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    IF NEW.status <> 'requested' THEN RAISE EXCEPTION 'delivery session must start requested, not %', NEW.status USING ERRCODE = 'check_violation'; END IF;
    RETURN NEW;
  END IF;
  IF NEW.status = OLD.status THEN RETURN NEW; END IF;
  IF (OLD.status, NEW.status) IN (
    ('requested', 'preparing'), ('requested', 'ready'), ('requested', 'failed'),
    ('preparing', 'ready'), ('preparing', 'failed'),
    ('ready', 'delivered'), ('ready', 'failed')
  ) THEN RETURN NEW; END IF;
  RAISE EXCEPTION 'illegal delivery session transition % -> %', OLD.status, NEW.status USING ERRCODE = 'check_violation';
END $$;
CREATE TRIGGER stream_delivery_session_transition BEFORE INSERT OR UPDATE OF status ON "stream_delivery_session"
  FOR EACH ROW EXECUTE FUNCTION stream_delivery_session_transition();

CREATE FUNCTION stream_purchase_transition() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    IF NEW.status <> 'delivery_reserving' THEN RAISE EXCEPTION 'purchase must start delivery_reserving, not %', NEW.status USING ERRCODE = 'check_violation'; END IF;
    RETURN NEW;
  END IF;
  IF NEW.status = OLD.status THEN RETURN NEW; END IF;
  IF (OLD.status, NEW.status) IN (
    ('delivery_reserving', 'payment_pending'), ('delivery_reserving', 'failed'), ('delivery_reserving', 'cancelled'),
    ('payment_pending', 'paid'), ('payment_pending', 'cancelled'), ('payment_pending', 'expired'),
    ('paid', 'delivering'), ('delivering', 'delivered'), ('delivering', 'failed'),
    ('delivered', 'completed')
  ) THEN RETURN NEW; END IF;
  RAISE EXCEPTION 'illegal purchase transition % -> %', OLD.status, NEW.status USING ERRCODE = 'check_violation';
END $$;
CREATE TRIGGER stream_purchase_transition BEFORE INSERT OR UPDATE OF status ON "stream_purchase"
  FOR EACH ROW EXECUTE FUNCTION stream_purchase_transition();
