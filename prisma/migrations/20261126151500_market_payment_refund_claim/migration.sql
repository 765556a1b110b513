-- A refund claims its transition before it sends the escrow refund on chain: held -> refund_pending (under the order's
-- row lock, in the same transaction that moves a `ready` order to `cancelled`, so execute can no longer claim it),
-- then the chain transaction, then refund_pending -> refunded. A crash between the steps leaves refund_pending, which
-- the next refund call completes from the escrow's state on chain. held -> refunded stays legal so that a replica
-- still running the previous release keeps working during a rolling upgrade.
-- subgraphs/markets/orders/order.states.ts holds the same table; test/markets/order-states.test.ts proves they agree.
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
    ('intent_created', 'held'), ('intent_created', 'refunded'),
    ('held', 'release_pending'), ('held', 'released'), ('held', 'frozen'), ('held', 'refunded'), ('held', 'refund_pending'),
    ('refund_pending', 'refunded'),
    ('release_pending', 'released'), ('release_pending', 'frozen'),
    ('frozen', 'released'), ('frozen', 'refunded')
  ) THEN RETURN NEW; END IF;
  RAISE EXCEPTION 'illegal market payment transition % -> %', OLD.status, NEW.status USING ERRCODE = 'check_violation';
END $$;
