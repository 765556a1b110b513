/**
 * Global rule 1 of document 3, in one place: every operation that names a machine (path, body or `machineId` query)
 * requires the machine to exist, be identity-verified and be active. Policy and audit-event operations skip it.
 *
 * Order: unknown machine -> NOT_FOUND; not identity-verified -> MACHINE_NOT_ACTIVATED; verified but status other than
 * `active` -> MACHINE_NOT_ACTIVE.
 *
 * Identity-verified follows the chain: the record was verified by its last write, and the stored proof's signer still
 * controls the identity at the chain's pinned block (with verification off, a record without a proof needs its
 * identity to resolve there). The chain's answer is kept per block (machines/identity/identity.resolution.ts), so a
 * guarded request costs a map lookup until the next block; a controller change on chain stops the machine on every
 * guarded route as soon as the reader pins the block that made it.
 *
 * Call `require` inside the transaction of the change it guards, so the check and the write see one snapshot; the
 * row is returned for callers that need its fields.
 */
import type { MarketMachine } from "../../shared/db/generated/client.js";
import { statementOf, type MarketsSql } from "./sql.js";
import { MarketsErrors } from "./errors.js";

/** Every column of market_machine under its Prisma field name (the model's @map names in prisma/schema.prisma). */
export const MACHINE_COLUMNS = `id, display_name AS "displayName", status, owner_id AS "ownerId", identity_ref AS "identityRef",
  on_chain_machine_id AS "onChainMachineId", identity_proof AS "identityProof", identity_verified AS "identityVerified",
  machine_type AS "machineType", runtime_profile AS "runtimeProfile", capabilities, policy_ids AS "policyIds",
  skill_keys AS "skillKeys", labels, created_at AS "createdAt", updated_at AS "updatedAt"`;

const MACHINE_BY_ID = `SELECT ${MACHINE_COLUMNS} FROM market_machine WHERE id = $1`;

/** Market machine IDs are `mach_` + 24 hex characters; anything else cannot name a machine. */
export const MARKET_MACHINE_ID = /^mach_[0-9a-f]{24}$/;

/** What the chain says about an identity at the pinned block (kept per block by the implementation). */
export interface IdentityVerdicts {
  /** Does `signerAddress` control the identity of `onChainMachineId`? False when it no longer resolves. */
  controls(onChainMachineId: string, signerAddress: string): Promise<boolean>;
  /** Does the identity of `onChainMachineId` resolve (verification off, a record without a proof)? */
  resolves(onChainMachineId: string): Promise<boolean>;
}

/** The fields of a machine row the verdict reads. */
export type IdentityFields = Pick<MarketMachine, "identityVerified" | "onChainMachineId" | "identityProof">;

export class MachineGuard {
  constructor(private readonly verdicts: IdentityVerdicts) {}

  /** Rule 1 for `marketMachineId`, read in `tx` (either kind of transaction, or the client for a guarded read). */
  async require(tx: MarketsSql, marketMachineId: string): Promise<MarketMachine> {
    if (!MARKET_MACHINE_ID.test(marketMachineId)) throw MarketsErrors.notFound();
    const [machine] = await statementOf(tx)<MarketMachine>(MACHINE_BY_ID, [marketMachineId]);
    return this.check(machine ?? null);
  }

  /** Rule 1 on a machine row the caller read in its transaction (null: there is none). */
  async check(machine: MarketMachine | null): Promise<MarketMachine> {
    if (!machine) throw MarketsErrors.notFound();
    return assertActive(machine, await this.identityHolds(machine));
  }

  /** Is the machine identity-verified now: its last write's verdict, and the chain at the pinned block? */
  async identityHolds(machine: IdentityFields): Promise<boolean> {
    if (!machine.identityVerified || machine.onChainMachineId === null) return false;
    const signer = (machine.identityProof as { signerAddress?: unknown } | null)?.signerAddress;
    if (typeof signer === "string") return this.verdicts.controls(machine.onChainMachineId, signer);
    return this.verdicts.resolves(machine.onChainMachineId);
  }
}

/** The rule on a row already read, with the identity verdict already taken. */
export function assertActive<T extends { identityVerified: boolean; status: string }>(machine: T | null, identityResolves = true): T {
  if (!machine) throw MarketsErrors.notFound();
  if (!machine.identityVerified || !identityResolves) throw MarketsErrors.machineNotActivated();
  if (machine.status !== "active") throw MarketsErrors.machineNotActive();
  return machine;
}
