/** Agent pairing rows: the row lock every market write and pairing change takes. */
import type { MarketAgentPairing as PairingRow } from "../../shared/db/generated/client.js";
import type { MarketsTx } from "../common/audit.repository.js";

/**
 * The pairing, its row locked until the transaction ends (`SELECT … FOR UPDATE`): a PATCH, revoke, rotation or
 * another order of the same pairing, on any instance, waits for this transaction. The daily limit's sum
 * (orders/order.repository.ts `withinDailyLimit`) is safe because of this lock.
 */
export async function lockPairing(tx: MarketsTx, pairingId: string): Promise<PairingRow | null> {
  await tx.$executeRaw`SELECT 1 FROM market_agent_pairing WHERE id = ${pairingId} FOR UPDATE`;
  return tx.marketAgentPairing.findUnique({ where: { id: pairingId } });
}
