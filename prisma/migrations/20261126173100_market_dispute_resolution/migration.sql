-- The arbiter resolves a disputed market order (orders/dispute.service.ts): its decision is stored on the order.
ALTER TABLE "market_order" ADD COLUMN "resolution" JSONB;

-- The arbiter's release or refund of a frozen escrow claims its transition first, under the order's row lock, then
-- sends, then records, like the refund route: frozen -> release_pending (the order moves disputed -> confirmed in the
-- same transaction) then release_pending -> released; frozen -> refund_pending (the order moves disputed ->
-- cancelled) then refund_pending -> refunded. frozen -> released stays for the rails that hold nothing on chain.
-- market_order_transition() is unchanged: disputed -> confirmed and disputed -> cancelled are already listed.
-- subgraphs/markets/orders/order.states.ts holds the same table; test/markets/orders/order-states.test.ts proves they agree.
CREATE OR REPLACE FUNCTION market_payment_transition() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    IF NEW.status NOT IN ('intent_created', 'not_required') THEN
      RAISE EXCEPTION 'market payment must start intent_created or not_required, not %', NEW.status USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
  END IF;
  IF NEW.status = OLD.status THEN RETURN NEW; END IF;
  IF (OLD.status, NEW.status) IN (
    ('intent_created', 'held'), ('intent_created', 'refunded'), ('intent_created', 'lock_pending'),
    ('lock_pending', 'held'), ('lock_pending', 'intent_created'),
    ('held', 'release_pending'), ('held', 'released'), ('held', 'frozen'), ('held', 'refunded'), ('held', 'refund_pending'),
    ('refund_pending', 'refunded'),
    ('release_pending', 'released'), ('release_pending', 'frozen'),
    ('frozen', 'released'), ('frozen', 'refunded'), ('frozen', 'release_pending'), ('frozen', 'refund_pending')
  ) THEN RETURN NEW; END IF;
  RAISE EXCEPTION 'illegal market payment transition % -> %', OLD.status, NEW.status USING ERRCODE = 'check_violation';
END $$;
