-- The early skeleton's registration table had no writer: `Machine.marketsRegistration` is read from the market
-- machine record bound to the on-chain machine (market_machine.on_chain_machine_id) instead.
DROP TABLE "markets_machine";
