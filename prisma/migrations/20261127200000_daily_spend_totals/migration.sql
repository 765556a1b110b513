-- Daily spend totals (docs/database.md "Daily spend totals"): a pairing's spend per UTC day and currency, the sum
-- the daily limits weigh (subgraphs/markets/common/spend.repository.ts). Summing the day's orders and purchases on
-- every spend cost a read per order of the pairing that day (and a scan of every stream purchase), under the
-- pairing's row lock; a total is one row. Triggers keep it in the same transaction as the row that changes it, so a
-- reader sees a total exactly when it sees the rows it sums: the limit's lock discipline is unchanged.
--
-- What counts, as the sum counted it: a market order that is not cancelled (spend_amount, spend_currency), a stream
-- purchase of a pairing that is not failed, cancelled or expired (amount, currency), each on the UTC day of its
-- created_at, under its currency in upper case ('' for none; a policy's currency is never empty).

-- CreateTable
CREATE TABLE "market_spend_day" (
    "pairing_id" TEXT NOT NULL,
    "day" DATE NOT NULL,
    "currency" TEXT NOT NULL DEFAULT '',
    "amount" DECIMAL NOT NULL,

    CONSTRAINT "market_spend_day_pkey" PRIMARY KEY ("pairing_id","day","currency")
);

-- Each function subtracts what the old row counted for and adds what the new row counts for; the upsert is written
-- out in each (no nested function call per row).
CREATE OR REPLACE FUNCTION market_order_spend() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' AND OLD.status <> 'cancelled' THEN
    INSERT INTO market_spend_day AS d (pairing_id, day, currency, amount)
    VALUES (OLD.agent_pairing_id, (OLD.created_at AT TIME ZONE 'UTC')::date, COALESCE(upper(OLD.spend_currency), ''), -OLD.spend_amount)
    ON CONFLICT (pairing_id, day, currency) DO UPDATE SET amount = d.amount + EXCLUDED.amount;
  END IF;
  IF TG_OP <> 'DELETE' AND NEW.status <> 'cancelled' THEN
    INSERT INTO market_spend_day AS d (pairing_id, day, currency, amount)
    VALUES (NEW.agent_pairing_id, (NEW.created_at AT TIME ZONE 'UTC')::date, COALESCE(upper(NEW.spend_currency), ''), NEW.spend_amount)
    ON CONFLICT (pairing_id, day, currency) DO UPDATE SET amount = d.amount + EXCLUDED.amount;
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION stream_purchase_spend() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' AND OLD.agent_pairing_id IS NOT NULL AND OLD.status NOT IN ('failed', 'cancelled', 'expired') THEN
    INSERT INTO market_spend_day AS d (pairing_id, day, currency, amount)
    VALUES (OLD.agent_pairing_id, (OLD.created_at AT TIME ZONE 'UTC')::date, COALESCE(upper(OLD.currency), ''), -(OLD.amount::numeric))
    ON CONFLICT (pairing_id, day, currency) DO UPDATE SET amount = d.amount + EXCLUDED.amount;
  END IF;
  IF TG_OP <> 'DELETE' AND NEW.agent_pairing_id IS NOT NULL AND NEW.status NOT IN ('failed', 'cancelled', 'expired') THEN
    INSERT INTO market_spend_day AS d (pairing_id, day, currency, amount)
    VALUES (NEW.agent_pairing_id, (NEW.created_at AT TIME ZONE 'UTC')::date, COALESCE(upper(NEW.currency), ''), NEW.amount::numeric)
    ON CONFLICT (pairing_id, day, currency) DO UPDATE SET amount = d.amount + EXCLUDED.amount;
  END IF;
  RETURN NULL;
END $$;

-- An update fires the function only when it changes what the row counts for: most updates (a status moving between
-- two counted states, a payment or handoff recorded) do not.
CREATE TRIGGER market_order_spend_write AFTER INSERT OR DELETE ON "market_order"
  FOR EACH ROW EXECUTE FUNCTION market_order_spend();
CREATE TRIGGER market_order_spend_update AFTER UPDATE ON "market_order"
  FOR EACH ROW WHEN ((OLD.status = 'cancelled') IS DISTINCT FROM (NEW.status = 'cancelled')
    OR OLD.agent_pairing_id IS DISTINCT FROM NEW.agent_pairing_id OR OLD.created_at IS DISTINCT FROM NEW.created_at
    OR OLD.spend_amount IS DISTINCT FROM NEW.spend_amount OR OLD.spend_currency IS DISTINCT FROM NEW.spend_currency)
  EXECUTE FUNCTION market_order_spend();
CREATE TRIGGER stream_purchase_spend_write AFTER INSERT OR DELETE ON "stream_purchase"
  FOR EACH ROW EXECUTE FUNCTION stream_purchase_spend();
CREATE TRIGGER stream_purchase_spend_update AFTER UPDATE ON "stream_purchase"
  FOR EACH ROW WHEN ((OLD.status IN ('failed', 'cancelled', 'expired')) IS DISTINCT FROM (NEW.status IN ('failed', 'cancelled', 'expired'))
    OR OLD.agent_pairing_id IS DISTINCT FROM NEW.agent_pairing_id OR OLD.created_at IS DISTINCT FROM NEW.created_at
    OR OLD.amount IS DISTINCT FROM NEW.amount OR OLD.currency IS DISTINCT FROM NEW.currency)
  EXECUTE FUNCTION stream_purchase_spend();

-- Backfill: the totals of the rows already written.
INSERT INTO "market_spend_day" ("pairing_id", "day", "currency", "amount")
SELECT pairing_id, day, currency, SUM(amount) FROM (
  SELECT agent_pairing_id AS pairing_id, (created_at AT TIME ZONE 'UTC')::date AS day, COALESCE(upper(spend_currency), '') AS currency,
    spend_amount AS amount
  FROM "market_order" WHERE status <> 'cancelled'
  UNION ALL
  SELECT agent_pairing_id, (created_at AT TIME ZONE 'UTC')::date, COALESCE(upper(currency), ''), amount::numeric
  FROM "stream_purchase" WHERE agent_pairing_id IS NOT NULL AND status NOT IN ('failed', 'cancelled', 'expired')
) spends GROUP BY pairing_id, day, currency;
