/**
 * Global rule 1 of document 3, in one place: every operation that names a machine (path, body or `machineId` query)
 * requires the machine to exist, be identity-verified and be active. Policy and audit-event operations skip it.
 *
 * Order: unknown machine -> NOT_FOUND; not identity-verified (no proof, or its identity no longer resolves) ->
 * MACHINE_NOT_ACTIVATED; verified but status other than `active` -> MACHINE_NOT_ACTIVE.
 *
 * Call it inside the transaction of the change it guards, so the check and the write see one snapshot; the row is
 * returned for callers that need its fields.
 */
import type { MarketMachine } from "../../shared/db/generated/client.js";
import type { MarketsTx } from "./audit.repository.js";
import { MarketsErrors } from "./errors.js";

/** Market machine IDs are `mach_` + 24 hex characters; anything else cannot name a machine. */
export const MARKET_MACHINE_ID = /^mach_[0-9a-f]{24}$/;

export async function requireActiveMachine(tx: MarketsTx, marketMachineId: string): Promise<MarketMachine> {
  if (!MARKET_MACHINE_ID.test(marketMachineId)) throw MarketsErrors.notFound();
  const machine = await tx.marketMachine.findUnique({ where: { id: marketMachineId } });
  return assertActive(machine);
}

/** The rule on a row already read (a read route that re-verified the identity first passes the verdict in). */
export function assertActive<T extends { identityVerified: boolean; status: string }>(machine: T | null, identityResolves = true): T {
  if (!machine) throw MarketsErrors.notFound();
  if (!machine.identityVerified || !identityResolves) throw MarketsErrors.machineNotActivated();
  if (machine.status !== "active") throw MarketsErrors.machineNotActive();
  return machine;
}
