-- Payment steps that send a chain transaction claim their transition first, under the order's row lock, then send,
-- then record (orders/payments/settlement.service.ts):
-- * escrow lock: intent_created -> lock_pending (cancel needs intent_created, so it cannot run while the lock is
--   sent), then lock_pending -> held; lock_pending -> intent_created gives the claim back when the lock failed and
--   nothing is locked on chain;
-- * refund: held -> refund_pending (in the same transaction that moves a `ready` order to `cancelled`, so execute can
--   no longer claim it), then refund_pending -> refunded.
-- A claim left behind by a crash is completed by the next call from the escrow's state on chain. held -> refunded
-- stays legal so that a replica still running the previous release keeps working during a rolling upgrade.
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
    ('frozen', 'released'), ('frozen', 'refunded')
  ) THEN RETURN NEW; END IF;
  RAISE EXCEPTION 'illegal market payment transition % -> %', OLD.status, NEW.status USING ERRCODE = 'check_violation';
END $$;
