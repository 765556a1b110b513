/**
 * Machine-side runtime agents (document 3; public notes 2.4): enrolment returns a one-time `agentToken` (only its
 * SHA-256 is stored); a heartbeat authenticated by that token upserts endpoints with source `agent` and
 * `leaseExpiresAt = now + leaseSeconds`, marks the agent active and records lastSeenAt, all in one SQL statement with
 * its audit event (machine-agent.repository). Revoked agents get AGENT_PAIRING_INACTIVE; provider keys outside
 * allowedProviderKeys get AGENT_POLICY_DENIED; a refused heartbeat changes nothing.
 */
import { hash as oneShotHash, randomBytes } from "node:crypto";
import type { Clock } from "../../shared/clock.js";
import type { MarketMachineAgent as AgentRow } from "../../shared/db/generated/client.js";
import { recordAuditEvent, type AuditActor } from "../common/audit.repository.js";
import { MarketsErrors } from "../common/errors.js";
import { assertActive } from "../common/machine.guard.js";
import type { HeartbeatAgent, HeartbeatReport, HeartbeatWrite, IdentityFacts, MachineAgentRepository } from "./machine-agent.repository.js";
import {
  MachineAgentStatus,
  type EnrollMachineAgentInput,
  type HeartbeatInput,
  type HeartbeatResult,
  type MachineAgent,
  type MachineAgentEnrollment,
  type MachineAgentPage,
} from "./machine-agent.type.js";
import { pageRequest, createdAtKeyset, createdAtPage } from "../common/pagination.js";
import type { RuntimeEndpointRow } from "./runtime-endpoint.repository.js";
import { providerKeyOf, type RuntimeEndpointService } from "./runtime-endpoint.service.js";
import type { MarketsStore } from "../common/store.js";

const PLATFORM: AuditActor = { type: "platform" };
const AGENT_ID = /^magt_[0-9a-f]{24}$/;
/** `mat_` + 32 random bytes in base64url. */
const AGENT_TOKEN = /^mat_[A-Za-z0-9_-]{43}$/;
const MAX_ALLOWED_KEYS = 32;

/** The token's SHA-256 (one-shot `crypto.hash`: no Hash object per heartbeat). */
const tokenHash = (token: string) => new Uint8Array(oneShotHash("sha256", token, "buffer"));

export interface HeartbeatLimits {
  maxLeaseSeconds: number;
  maxEndpoints: number;
}

export function toMachineAgent(row: AgentRow): MachineAgent {
  return {
    id: row.id,
    machineId: row.machineId,
    label: row.label,
    status: row.status.toUpperCase() as MachineAgentStatus,
    allowedProviderKeys: row.allowedProviderKeys,
    lastSeenAt: row.lastSeenAt?.toISOString() ?? null,
    revokedAt: row.revokedAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/**
 * How many tokens' identity facts are kept at most (a few hundred bytes each); when full the oldest is dropped. A token
 * without kept facts costs one more statement on its next heartbeat.
 */
const MAX_IDENTITY_FACTS = 50_000;

export class MachineAgentService {
  /** The identity facts of each token's machine as the heartbeat statement last answered them. */
  private readonly identityFacts = new Map<string, IdentityFacts>();

  constructor(
    private readonly store: MarketsStore,
    private readonly endpoints: RuntimeEndpointService,
    private readonly agents: MachineAgentRepository,
    private readonly limits: HeartbeatLimits,
    private readonly clock: Clock,
  ) {}

  async enroll(machineId: string, input: EnrollMachineAgentInput, actor: AuditActor = PLATFORM): Promise<MachineAgentEnrollment> {
    const label = input.label ?? "runtime agent";
    if (label.length === 0 || label.length > 200) throw MarketsErrors.validation();
    const keys = input.allowedProviderKeys.map(providerKeyOf);
    if (keys.length === 0 || keys.length > MAX_ALLOWED_KEYS || new Set(keys).size !== keys.length) throw MarketsErrors.validation();
    const agentToken = `mat_${randomBytes(32).toString("base64url")}`;
    const now = new Date(this.clock.now());
    const row = await this.store.write(async (tx) => {
      await this.store.requireActiveMachine(tx, machineId);
      const created = await tx.marketMachineAgent.create({
        data: {
          id: `magt_${randomBytes(12).toString("hex")}`,
          machineId,
          label,
          status: "enrolled",
          tokenHash: tokenHash(agentToken),
          allowedProviderKeys: keys,
          createdAt: now,
          updatedAt: now,
        },
      });
      await recordAuditEvent(tx, {
        kind: "machine-agent.enrolled",
        machineId,
        actor,
        occurredAt: now,
        data: { agentId: created.id, label, allowedProviderKeys: keys },
      });
      return created;
    });
    return { agent: toMachineAgent(row), agentToken };
  }

  /** `guard: false` only for the machine record's own nested fields (GraphQL), which show drafts too. */
  async list(machineId: string, limit: number | null | undefined, cursor: string | null | undefined, guard = true): Promise<MachineAgentPage> {
    const page = pageRequest(limit, cursor, 2);
    const keyset = createdAtKeyset(page);
    const rows = await this.store.read(async (prisma) => {
      if (guard) await this.store.requireActiveMachine(prisma, machineId);
      return prisma.marketMachineAgent.findMany({
        where: { machineId, ...keyset.where },
        orderBy: keyset.orderBy,
        take: keyset.take,
      });
    });
    const { items, nextCursor } = createdAtPage(rows, page);
    return { items: items.map(toMachineAgent), nextCursor };
  }

  /** Revocation is final; revoking a revoked agent changes nothing and answers it as it is. */
  async revoke(machineId: string, agentId: string, actor: AuditActor = PLATFORM): Promise<MachineAgent> {
    const now = new Date(this.clock.now());
    const row = await this.store.write(async (tx) => {
      await this.store.requireActiveMachine(tx, machineId);
      const agent = AGENT_ID.test(agentId) ? await tx.marketMachineAgent.findUnique({ where: { id: agentId } }) : null;
      if (!agent || agent.machineId !== machineId) throw MarketsErrors.notFound();
      if (agent.status === "revoked") return agent;
      const revoked = await tx.marketMachineAgent.update({ where: { id: agentId }, data: { status: "revoked", revokedAt: now, updatedAt: now } });
      await recordAuditEvent(tx, { kind: "machine-agent.revoked", machineId, actor, occurredAt: now, data: { agentId } });
      return revoked;
    });
    return toMachineAgent(row);
  }

  /**
   * Global rule 1's chain verdict for a machine with these identity facts and its verified flag set (the statement
   * checks the flag): whether the proof's signer still controls the identity at the chain's pinned block, kept per
   * block by the guard, so a controller change counts from the block that made it.
   */
  private identityHolds(facts: IdentityFacts): Promise<boolean> {
    const { onChainMachineId, signerAddress } = facts;
    return this.store.guard.identityHolds({ identityVerified: true, onChainMachineId, identityProof: signerAddress === null ? null : { signerAddress } });
  }

  /**
   * Checks, in order: credential present (AGENT_AUTH_REQUIRED) and known (AGENT_AUTH_INVALID), agent not revoked
   * (AGENT_PAIRING_INACTIVE), the body (VALIDATION_ERROR), every provider key allowed (AGENT_POLICY_DENIED), the
   * machine active and verified (global rule 1).
   */
  async heartbeat(agentToken: string | null | undefined, input: HeartbeatInput): Promise<HeartbeatResult> {
    if (agentToken == null) throw MarketsErrors.agentAuthRequired();
    if (!AGENT_TOKEN.test(agentToken)) throw MarketsErrors.agentAuthInvalid();
    const hash = tokenHash(agentToken);
    const now = new Date(this.clock.now());
    // A token to seal needs the agent's machine (the associated data) before the statement: one read, cold path.
    let known = input.endpoints?.some((endpoint) => endpoint.authToken != null) ? await this.knownAgent(hash) : null;
    let prepared: { keys: string[]; reports: HeartbeatReport[]; leaseExpiresAt: Date };
    try {
      prepared = this.prepare(input, known?.machineId ?? "", now);
    } catch (error) {
      // The credential is checked before the body: a refused body first proves the token names a live agent.
      known ??= await this.knownAgent(hash);
      throw error;
    }
    const { keys, reports, leaseExpiresAt } = prepared;
    // The verdict is taken for the identity facts last seen for this token, and the statement writes only while the
    // machine record still has them; when it answers other facts (first heartbeat, a record change), the verdict is
    // taken again for those and the statement repeated. So no stale record is trusted and a hot agent costs one
    // statement.
    const key = Buffer.from(hash.buffer, hash.byteOffset, hash.byteLength).toString("base64");
    let facts = this.identityFacts.get(key) ?? null;
    let holds = facts !== null && (await this.identityHolds(facts));
    for (let attempt = 1; ; attempt++) {
      const seen = facts;
      const { agent, written } = await this.store.statement((sql) => this.agents.heartbeat(sql, hash, reports, now, leaseExpiresAt, holds, seen));
      if (!agent) {
        this.identityFacts.delete(key);
        throw MarketsErrors.agentAuthInvalid();
      }
      if (agent.status === "revoked") throw MarketsErrors.agentPairingInactive();
      if (keys.some((k) => !agent.allowedProviderKeys.includes(k))) throw MarketsErrors.agentPolicyDenied();
      if (seen === null || seen.onChainMachineId !== agent.onChainMachineId || seen.signerAddress !== agent.signerAddress) {
        facts = { onChainMachineId: agent.onChainMachineId, signerAddress: agent.signerAddress };
        this.identityFacts.delete(key);
        if (this.identityFacts.size >= MAX_IDENTITY_FACTS) this.identityFacts.delete(this.identityFacts.keys().next().value!);
        this.identityFacts.set(key, facts);
        holds = await this.identityHolds(facts);
        // Refused on the facts the record has now: no need to write to say so.
        assertActive({ status: agent.machineStatus, identityVerified: agent.machineVerified }, holds);
        // A record whose facts keep changing under concurrent writes is not chased for ever.
        if (attempt >= 3) throw MarketsErrors.storeUnavailable();
        continue;
      }
      assertActive({ status: agent.machineStatus, identityVerified: agent.machineVerified }, holds);
      return this.answer(agent, written, reports, known, now, leaseExpiresAt);
    }
  }

  /** The heartbeat's answer from the statement's row: the agent as updated and the endpoints as written. */
  private answer(agent: HeartbeatAgent, written: HeartbeatWrite["written"], reports: HeartbeatReport[], known: { machineId: string } | null, now: Date, leaseExpiresAt: Date): HeartbeatResult {
    // An agent never changes machine, so a token sealed for the machine read above is sealed for this one.
    if (written.length !== reports.length || (known && known.machineId !== agent.machineId)) throw MarketsErrors.storeUnavailable();
    const createdAt = new Map(written.map((row) => [row.providerKey, row.createdAt]));
    const rows: RuntimeEndpointRow[] = reports.map(({ providerKey, values }) => ({
      machineId: agent.machineId,
      providerKey,
      ...values,
      leaseExpiresAt,
      agentId: agent.id,
      createdAt: createdAt.get(providerKey)!,
      updatedAt: now,
    }));
    const updated: AgentRow = {
      id: agent.id,
      machineId: agent.machineId,
      label: agent.label,
      status: "active",
      tokenHash: new Uint8Array(0),
      allowedProviderKeys: agent.allowedProviderKeys,
      lastSeenAt: now,
      revokedAt: agent.revokedAt,
      createdAt: new Date(agent.createdAt),
      updatedAt: now,
    };
    return {
      agent: toMachineAgent(updated),
      endpoints: rows.map((row) => this.endpoints.view(row, now.getTime())),
      leaseExpiresAt: leaseExpiresAt.toISOString(),
    };
  }

  /** The agent holding this token hash; refuses an unknown (AGENT_AUTH_INVALID) or revoked (AGENT_PAIRING_INACTIVE) one. */
  private async knownAgent(hash: Uint8Array<ArrayBuffer>): Promise<{ machineId: string; status: string }> {
    const agent = await this.store.read((prisma) => this.agents.findByToken(prisma, hash));
    if (!agent) throw MarketsErrors.agentAuthInvalid();
    if (agent.status === "revoked") throw MarketsErrors.agentPairingInactive();
    return agent;
  }

  /** The body's checks (VALIDATION_ERROR) and the rows it reports; `machineId` only seals endpoint tokens. */
  private prepare(input: HeartbeatInput, machineId: string, now: Date) {
    const { leaseSeconds, endpoints } = input;
    if (!Number.isInteger(leaseSeconds) || leaseSeconds < 1 || leaseSeconds > this.limits.maxLeaseSeconds) throw MarketsErrors.validation();
    if (!Array.isArray(endpoints) || endpoints.length === 0 || endpoints.length > this.limits.maxEndpoints) throw MarketsErrors.validation();
    const keys = endpoints.map((endpoint) => providerKeyOf(endpoint.providerKey));
    if (new Set(keys).size !== keys.length) throw MarketsErrors.validation();
    const leaseExpiresAt = new Date(now.getTime() + leaseSeconds * 1000);
    const reports: HeartbeatReport[] = endpoints.map((endpoint, index) => ({
      providerKey: keys[index]!,
      values: this.endpoints.values(machineId, keys[index]!, { ...endpoint, leaseExpiresAt: null }, "agent"),
    }));
    return { keys, reports, leaseExpiresAt };
  }
}
