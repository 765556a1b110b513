/** Agent pairing rows: the row lock every market write and pairing change takes. */
import type { MarketAgentPairing as PairingRow } from "../../shared/db/generated/client.js";
import { lockRowById } from "../common/row-lock.repository.js";
import type { MarketsSql } from "../common/sql.js";

/**
 * The pairing, its row locked until the transaction ends (`SELECT * … FOR UPDATE`, read and locked in one statement): a PATCH, revoke, rotation or
 * another order of the same pairing, on any instance, waits for this transaction. The daily limit's sum
 * (orders/order.repository.ts `withinDailyLimit`) is safe because of this lock.
 */
export async function lockPairing(tx: MarketsSql, pairingId: string): Promise<PairingRow | null> {
  return lockRowById<PairingRow>(tx, "market_agent_pairing", pairingId);
}
