/**
 * Machine records of the markets API (document 3, "Machine identity and machines"; docs/markets-identity.md).
 *
 * - create: with verification `required` an identityProof is mandatory; with `off`, an identityRef that resolves
 *   on chain binds without one. One record per on-chain identity, whichever identityRef spelling names it
 *   (MACHINE_IDENTITY_EXISTS); the record keeps the spelling it was given.
 * - update: identityRef immutable once set (another spelling of the same machine is no change); a new proof is
 *   verified and stored; without one the stored proof is re-verified at the chain head and the identity-verified
 *   flag follows; activating an unverified machine gives MACHINE_NOT_ACTIVATED.
 * - read: re-verifies the stored proof against the identity's controllers at the pinned block (cached per block);
 *   MACHINE_NOT_ACTIVATED when it no longer resolves.
 * - list: records with a stored proof, not re-checked.
 */
import { randomBytes } from "node:crypto";
import type { Clock } from "../../shared/clock.js";
import type { IdentityVerificationMode } from "../../shared/config/markets.js";
import { isUniqueViolation } from "../../shared/db/index.js";
import { recordAuditEvent, type AuditActor, type MarketsTx } from "../common/audit.repository.js";
import { MarketsErrors } from "../common/errors.js";
import type { IdentityChallengeService, VerifiedProof } from "./identity/identity-challenge.service.js";
import { MARKET_MACHINE_ID } from "../common/machine.guard.js";
import { toMarketMachine, type MarketMachineRepository, type MarketMachineRow } from "./market-machine.repository.js";
import {
  MarketMachineStatus,
  type CreateMarketMachineInput,
  type MachineIdentityProof,
  type MarketMachine,
  type MarketMachinePage,
  type UpdateMarketMachineInput,
} from "./market-machine.type.js";
import type { MarketsRegistration } from "./machine.type.js";
import { pageRequest } from "../common/pagination.js";
import type { MarketsStore } from "../common/store.js";

const PLATFORM: AuditActor = { type: "platform" };

const text = (value: string, max: number) => {
  if (value.length === 0 || value.length > max || value.trim() !== value) throw MarketsErrors.validation();
  return value;
};
const textList = (values: string[], maxItems = 64, maxLength = 100) => {
  if (values.length > maxItems || new Set(values).size !== values.length) throw MarketsErrors.validation();
  return values.map((value) => text(value, maxLength));
};
function labelsOf(value: Record<string, unknown>): Record<string, string> {
  const entries = Object.entries(value);
  if (entries.length > 64) throw MarketsErrors.validation();
  for (const [key, entry] of entries) {
    if (key.length === 0 || key.length > 100 || typeof entry !== "string" || entry.length > 500) throw MarketsErrors.validation();
  }
  return value as Record<string, string>;
}

/** The fields every write may set, checked; `undefined` means not given. */
function settableFields(input: CreateMarketMachineInput | UpdateMarketMachineInput) {
  return {
    displayName: input.displayName == null ? undefined : text(input.displayName, 200),
    ownerId: input.ownerId == null ? undefined : text(input.ownerId, 200),
    machineType: input.machineType == null ? undefined : text(input.machineType, 100),
    runtimeProfile: input.runtimeProfile == null ? undefined : text(input.runtimeProfile, 100),
    capabilities: input.capabilities == null ? undefined : textList(input.capabilities),
    policyIds: input.policyIds == null ? undefined : textList(input.policyIds),
    skillKeys: input.skillKeys == null ? undefined : textList(input.skillKeys),
    labels: input.labels == null ? undefined : labelsOf(input.labels),
  };
}

export class MarketMachineService {
  constructor(
    private readonly store: MarketsStore,
    private readonly machines: MarketMachineRepository,
    private readonly identity: IdentityChallengeService,
    private readonly mode: IdentityVerificationMode,
    private readonly clock: Clock,
  ) {}

  async create(input: CreateMarketMachineInput, actor: AuditActor = PLATFORM): Promise<MarketMachine> {
    const fields = settableFields(input);
    if (fields.displayName === undefined) throw MarketsErrors.validation();
    const identityRef = input.identityRef ?? null;
    if (input.identityProof && identityRef === null) throw MarketsErrors.validation();
    const onChainMachineId = identityRef === null ? null : await this.identity.onChainIdOf(identityRef);
    if (onChainMachineId !== null && (await this.machines.findByOnChainId(onChainMachineId))) throw MarketsErrors.identityExists();

    let verified: VerifiedProof | null = null;
    let identityVerified = false;
    if (input.identityProof) {
      verified = await this.identity.verify(identityRef!, input.identityProof, onChainMachineId!);
      identityVerified = true;
    } else if (this.mode === "required") {
      throw MarketsErrors.identityProofRequired();
    } else if (onChainMachineId !== null) {
      identityVerified = await this.identity.resolvesNow(onChainMachineId);
    }
    const status = input.status ?? (identityVerified ? MarketMachineStatus.ACTIVE : MarketMachineStatus.DRAFT);
    if (status === MarketMachineStatus.ACTIVE && !identityVerified) throw MarketsErrors.machineNotActivated();

    const now = new Date(this.clock.now());
    const id = `mach_${randomBytes(12).toString("hex")}`;
    const row = await this.writeOrExists(async (tx) => {
        await verified?.consume(tx);
        const created = await this.machines.create(tx, {
          id,
          displayName: fields.displayName!,
          status: status.toLowerCase(),
          ownerId: fields.ownerId ?? verified?.proof.signerAddress ?? "",
          identityRef,
          onChainMachineId,
          identityProof: verified ? { ...verified.proof } : undefined,
          identityVerified,
          machineType: fields.machineType ?? "generic",
          runtimeProfile: fields.runtimeProfile ?? "default",
          capabilities: fields.capabilities ?? [],
          policyIds: fields.policyIds ?? [],
          skillKeys: fields.skillKeys ?? [],
          labels: fields.labels ?? {},
          createdAt: now,
          updatedAt: now,
        });
        await recordAuditEvent(tx, {
          kind: "machine.created",
          machineId: id,
          actor,
          occurredAt: now,
          data: { status: created.status, identityRef, identityVerified },
        });
        return created;
    });
    return toMarketMachine(row);
  }

  async update(id: string, input: UpdateMarketMachineInput, actor: AuditActor = PLATFORM): Promise<MarketMachine> {
    const current = await this.existing(id);
    const fields = settableFields(input);
    // Another spelling of the bound identity changes nothing; the record keeps the spelling it was bound with.
    const respelled = input.identityRef != null && current.identityRef !== null && input.identityRef !== current.identityRef;
    if (respelled && !(await this.identity.names(input.identityRef!, current.onChainMachineId!))) {
      throw MarketsErrors.identityImmutable();
    }
    const identityRef = current.identityRef ?? input.identityRef ?? null;
    const onChainMachineId = current.onChainMachineId ?? (identityRef === null ? null : await this.identity.onChainIdOf(identityRef));
    const binding = current.identityRef === null && identityRef !== null;
    if (binding && (await this.machines.findByOnChainId(onChainMachineId!))) throw MarketsErrors.identityExists();

    let verified: VerifiedProof | null = null;
    let identityVerified: boolean;
    const stored = current.identityProof as unknown as MachineIdentityProof | null;
    if (input.identityProof) {
      if (identityRef === null) throw MarketsErrors.validation();
      verified = await this.identity.verify(identityRef, input.identityProof, onChainMachineId!);
      identityVerified = true;
    } else if (stored !== null) {
      identityVerified = await this.identity.stillControls(onChainMachineId!, stored.signerAddress, true);
    } else if (this.mode === "required") {
      throw MarketsErrors.identityProofRequired();
    } else {
      identityVerified = onChainMachineId !== null && (await this.identity.resolvesNow(onChainMachineId));
    }
    if (input.status === MarketMachineStatus.ACTIVE && !identityVerified) throw MarketsErrors.machineNotActivated();

    const now = new Date(this.clock.now());
    const changed = Object.entries({ ...fields, status: input.status ?? undefined, identityRef: binding ? identityRef : undefined })
      .filter(([, value]) => value !== undefined)
      .map(([name]) => name);
    if (verified) changed.push("identityProof");
    const row = await this.writeOrExists(async (tx) => {
      await verified?.consume(tx);
      const updated = await this.machines.update(tx, id, {
        ...fields,
        status: input.status == null ? undefined : input.status.toLowerCase(),
        identityRef: binding ? identityRef : undefined,
        onChainMachineId: binding ? onChainMachineId : undefined,
        identityProof: verified ? { ...verified.proof } : undefined,
        identityVerified,
        updatedAt: now,
      });
      await recordAuditEvent(tx, { kind: "machine.updated", machineId: id, actor, occurredAt: now, data: { changed, identityVerified } });
      return updated;
    });
    return toMarketMachine(row);
  }

  /** GET /machines/:machineId: the record, its stored proof re-verified at the pinned block. */
  async read(id: string): Promise<MarketMachine> {
    const row = await this.existing(id);
    const stored = row.identityProof as unknown as MachineIdentityProof | null;
    if (stored !== null && !(await this.identity.stillControls(row.onChainMachineId!, stored.signerAddress))) {
      throw MarketsErrors.machineNotActivated();
    }
    return this.live(row);
  }

  async list(limit: number | null | undefined, cursor: string | null | undefined): Promise<MarketMachinePage> {
    const page = await this.machines.listWithProof(pageRequest(limit, cursor, 2));
    return { items: await Promise.all(page.items.map((row) => this.live(row))), nextCursor: page.nextCursor };
  }

  /** The record keyed by on-chain machine ID (the federated Machine entity's market record), unchecked. */
  async byOnChainId(onChainMachineId: string): Promise<MarketMachine | null> {
    const row = await this.machines.findByOnChainId(onChainMachineId);
    return row && this.live(row);
  }

  /** The brief registration of the record bound to an on-chain machine, as stored (no chain read); null when none. */
  async registration(onChainMachineId: string): Promise<MarketsRegistration | null> {
    const row = await this.machines.findByOnChainId(onChainMachineId);
    if (!row?.identityRef) return null;
    return { identityRef: row.identityRef, status: row.status.toUpperCase() as MarketMachineStatus, registeredAt: row.createdAt.toISOString() };
  }

  /** The view with identityVerified as global rule 1 sees it now (the chain at the pinned block, per block). */
  private async live(row: MarketMachineRow): Promise<MarketMachine> {
    return { ...toMarketMachine(row), identityVerified: await this.store.guard.identityHolds(row) };
  }

  private async existing(id: string): Promise<MarketMachineRow> {
    if (!MARKET_MACHINE_ID.test(id)) throw MarketsErrors.notFound();
    const row = await this.machines.find(id);
    if (!row) throw MarketsErrors.notFound();
    return row;
  }

  /** A concurrent bind of the same identity loses on the unique index: MACHINE_IDENTITY_EXISTS. */
  private async writeOrExists(work: (tx: MarketsTx) => Promise<MarketMachineRow>): Promise<MarketMachineRow> {
    try {
      return await this.store.write(work);
    } catch (error) {
      if (isUniqueViolation(error)) throw MarketsErrors.identityExists();
      throw error;
    }
  }
}
