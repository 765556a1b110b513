/**
 * Agent pairings (document 3, Agent pairings and Authentication 2, 3, 5; public notes 2.3).
 *
 * - challenge: agentAddress must be an EVM address (lowercase, or correctly checksummed); agentDid omitted becomes
 *   `did:pkh:eip155:1:<checksummed agentAddress>`; given, it must be `did:pkh:eip155:<chainId>:<address>` whose
 *   address is the checksummed agentAddress exactly, else VALIDATION_ERROR. The challenge is single-use and expires
 *   after AGENT_PAIRING_CHALLENGE_TTL_SECONDS.
 * - create / rotate: with AGENT_PAIRING_VERIFICATION=required (default) an agentProof is needed
 *   (AGENT_PAIRING_PROOF_REQUIRED); unknown, used, foreign challenge or a signer other than agentAddress ->
 *   AGENT_PAIRING_PROOF_INVALID; past expiry -> AGENT_PAIRING_PROOF_EXPIRED. Both answer a new `pairingToken`
 *   (orders/pairing.token.ts) once; the pairing keeps its hash and last four characters.
 * - PATCH: a new policy (the old token's delegationPolicyHash stops matching: rotate), pause, resume.
 * - DELETE: revoked (final; the token stops working), refused with OPEN_MARKET_ORDERS + orderIds while the pairing
 *   has orders not confirmed, cancelled or failed.
 * - authenticate (every market write): the class this one extends (orders/pairing.auth.ts).
 */
import { randomBytes } from "node:crypto";
import type { Clock } from "../../shared/clock.js";
import type { MarketAgentPairing as PairingRow } from "../../shared/db/generated/client.js";
import { DomainError } from "../../shared/errors.js";
import { recordAuditEvent, type AuditActor, type MarketsTx } from "../common/audit.repository.js";
import { MarketsErrors } from "../common/errors.js";
import { OPEN_ORDER_STATUSES } from "./order.states.js";
import { pageRequest, createdAtKeyset, createdAtPage } from "../common/pagination.js";
import { normalizePolicy, policyHash } from "./pairing.policy.js";
import { tokenHash, type PairingTokens } from "./pairing.token.js";
import type {
  AgentPairing,
  AgentPairingChallenge,
  AgentPairingChallengeInput,
  AgentPairingPage,
  AgentProofInput,
  CreateAgentPairingInput,
  UpdateAgentPairingInput,
} from "./pairing.type.js";
import type { MarketsStore } from "../common/store.js";
import { newId } from "../common/support.js";
import { agentIdentity, optionalText, pairingView } from "./pairing.views.js";
import { pairingProof } from "./pairing.proof.js";
import { lockPairing } from "./pairing.repository.js";
import { AgentAuthentication, PAIRING_ID } from "./pairing.auth.js";

export { agentIdentity, pairingView } from "./pairing.views.js";
export type { AgentSession } from "./pairing.auth.js";

const PLATFORM: AuditActor = { type: "platform" };

export interface PairingSettings {
  verification: "required" | "off";
  challengeTtlSeconds: number;
  namespace: string;
}

export class PairingService extends AgentAuthentication {
  constructor(
    store: MarketsStore,
    tokens: PairingTokens,
    readonly settings: PairingSettings,
    clock: Clock,
  ) {
    super(store, tokens, clock);
  }

  async challenge(machineId: string, input: AgentPairingChallengeInput): Promise<AgentPairingChallenge> {
    const { address, did } = agentIdentity(input.agentAddress, input.agentDid);
    const agentProvider = optionalText(input.agentProvider, 100);
    const agentRole = optionalText(input.agentRole, 100);
    const issuedAt = new Date(this.clock.now());
    const expiresAt = new Date(issuedAt.getTime() + this.settings.challengeTtlSeconds * 1000);
    const challengeId = `apc_${randomBytes(12).toString("hex")}`;
    const message = [
      `${this.settings.namespace} machine markets asks the agent wallet ${address} to pair with machine ${machineId}.`,
      "",
      `Agent: ${address}`,
      `Agent DID: ${did}`,
      `Machine: ${machineId}`,
      `Challenge ID: ${challengeId}`,
      `Nonce: 0x${randomBytes(32).toString("hex")}`,
      `Issued At: ${issuedAt.toISOString()}`,
      `Expiration Time: ${expiresAt.toISOString()}`,
    ].join("\n");
    await this.store.write(async (tx) => {
      await this.store.requireActiveMachine(tx, machineId);
      await tx.marketPairingChallenge.create({
        data: { id: challengeId, machineId, agentAddress: address, agentDid: did, agentProvider, agentRole, message, issuedAt, expiresAt },
      });
    });
    return { challengeId, machineId, agentAddress: address, agentDid: did, message, expiresAt: expiresAt.toISOString(), verificationMethod: "eip191" };
  }

  async list(machineId: string, limit: number | null | undefined, cursor: string | null | undefined, guard = true): Promise<AgentPairingPage> {
    const page = pageRequest(limit, cursor, 2);
    const keyset = createdAtKeyset(page);
    const rows = await this.store.read(async (prisma) => {
      if (guard) await this.store.requireActiveMachine(prisma, machineId);
      return prisma.marketAgentPairing.findMany({
        where: { machineId, ...keyset.where },
        orderBy: keyset.orderBy,
        take: keyset.take,
      });
    });
    const { items, nextCursor } = createdAtPage(rows, page);
    return { items: items.map((row) => pairingView(row)), nextCursor };
  }

  async create(machineId: string, input: CreateAgentPairingInput): Promise<AgentPairing> {
    const { address, did } = agentIdentity(input.agentAddress, input.agentDid);
    const agentProvider = optionalText(input.agentProvider, 100) ?? "unspecified";
    const agentRole = optionalText(input.agentRole, 100) ?? "machine-market-buyer";
    const description = optionalText(input.description, 500);
    const policy = normalizePolicy(input.delegationPolicy);
    const hash = policyHash(policy);
    const now = new Date(this.clock.now());
    await this.store.read((prisma) => this.store.requireActiveMachine(prisma, machineId));
    const proof = pairingProof(this.settings.verification, input.agentProof, machineId, address, now);
    const id = newId("pair");
    const session = await this.newSession(id, machineId, address, did, hash, now);
    const row = await this.store.write(async (tx) => {
      await this.store.requireActiveMachine(tx, machineId);
      const verification = await proof.consume(tx, did);
      const created = await tx.marketAgentPairing.create({
        data: {
          id,
          machineId,
          status: "active",
          agentAddress: address,
          agentDid: did,
          agentProvider,
          agentRole,
          description,
          verification: verification ?? undefined,
          delegationPolicy: policy as never,
          delegationPolicyHash: hash,
          ...session.columns,
          createdAt: now,
          updatedAt: now,
        },
      });
      await recordAuditEvent(tx, {
        kind: "agent-pairing.created",
        machineId,
        actor: PLATFORM,
        occurredAt: now,
        data: { pairingId: id, agentAddress: address, agentDid: did, delegationPolicyHash: hash, sessionId: session.columns.sessionId },
      });
      return created;
    });
    return pairingView(row, session.token);
  }

  async rotate(machineId: string, pairingId: string, agentProof: AgentProofInput | null | undefined): Promise<AgentPairing> {
    const now = new Date(this.clock.now());
    const current = await this.store.read(async (prisma) => {
      await this.store.requireActiveMachine(prisma, machineId);
      return this.find(prisma, machineId, pairingId);
    });
    if (current.status !== "active") throw MarketsErrors.agentPairingInactive();
    const proof = pairingProof(this.settings.verification, agentProof, machineId, current.agentAddress, now);
    const session = await this.newSession(current.id, machineId, current.agentAddress, current.agentDid, current.delegationPolicyHash, now);
    const row = await this.store.write(async (tx) => {
      await this.store.requireActiveMachine(tx, machineId);
      const verification = await proof.consume(tx, current.agentDid);
      const { count } = await tx.marketAgentPairing.updateMany({
        where: { id: pairingId, status: "active", delegationPolicyHash: current.delegationPolicyHash },
        data: { ...session.columns, ...(verification ? { verification } : {}), updatedAt: now },
      });
      if (count !== 1) throw MarketsErrors.agentPairingInactive();
      await recordAuditEvent(tx, {
        kind: "agent-pairing.session-rotated",
        machineId,
        actor: PLATFORM,
        occurredAt: now,
        data: { pairingId, sessionId: session.columns.sessionId, previousSessionId: current.sessionId },
      });
      return tx.marketAgentPairing.findUniqueOrThrow({ where: { id: pairingId } });
    });
    return pairingView(row, session.token);
  }

  async update(machineId: string, pairingId: string, input: UpdateAgentPairingInput): Promise<AgentPairing> {
    const status = input.status ?? null;
    if (status !== null && status !== "active" && status !== "paused") throw MarketsErrors.validation();
    const policy = input.delegationPolicy === null || input.delegationPolicy === undefined ? null : normalizePolicy(input.delegationPolicy);
    const description = input.description === undefined ? undefined : optionalText(input.description, 500);
    if (status === null && policy === null && description === undefined) throw MarketsErrors.validation();
    const now = new Date(this.clock.now());
    const row = await this.store.write(async (tx) => {
      await this.store.requireActiveMachine(tx, machineId);
      const before = await this.lock(tx, machineId, pairingId);
      if (before.status === "revoked") throw MarketsErrors.agentPairingInactive();
      const after = await tx.marketAgentPairing.update({
        where: { id: pairingId },
        data: {
          ...(status === null ? {} : { status }),
          ...(policy === null ? {} : { delegationPolicy: policy as never, delegationPolicyHash: policyHash(policy) }),
          ...(description === undefined ? {} : { description }),
          updatedAt: now,
        },
      });
      await recordAuditEvent(tx, {
        kind: "agent-pairing.updated",
        machineId,
        actor: PLATFORM,
        occurredAt: now,
        data: {
          pairingId,
          before: { status: before.status, delegationPolicyHash: before.delegationPolicyHash },
          after: { status: after.status, delegationPolicyHash: after.delegationPolicyHash },
        },
      });
      return after;
    });
    return pairingView(row);
  }

  /** DELETE: revoked, unless the pairing has open orders (OPEN_MARKET_ORDERS with their IDs). Revoking twice is a no-op. */
  async revoke(machineId: string, pairingId: string): Promise<AgentPairing> {
    const now = new Date(this.clock.now());
    const row = await this.store.write(async (tx) => {
      await this.store.requireActiveMachine(tx, machineId);
      const before = await this.lock(tx, machineId, pairingId);
      if (before.status === "revoked") return before;
      const open = await tx.marketOrder.findMany({
        where: { agentPairingId: pairingId, status: { in: [...OPEN_ORDER_STATUSES] } },
        select: { id: true },
        orderBy: { createdAt: "asc" },
        take: 100,
      });
      if (open.length > 0) {
        throw new DomainError("OPEN_MARKET_ORDERS", "The pairing has open market orders.", { orderIds: open.map((o) => o.id) });
      }
      const after = await tx.marketAgentPairing.update({ where: { id: pairingId }, data: { status: "revoked", revokedAt: now, updatedAt: now } });
      await recordAuditEvent(tx, { kind: "agent-pairing.revoked", machineId, actor: PLATFORM, occurredAt: now, data: { pairingId } });
      return after;
    });
    return pairingView(row);
  }

  private async find(prisma: MarketsTx, machineId: string, pairingId: string): Promise<PairingRow> {
    const row = PAIRING_ID.test(pairingId) ? await prisma.marketAgentPairing.findUnique({ where: { id: pairingId } }) : null;
    if (!row || row.machineId !== machineId) throw MarketsErrors.notFound();
    return row;
  }

  private async lock(tx: MarketsTx, machineId: string, pairingId: string): Promise<PairingRow> {
    const row = PAIRING_ID.test(pairingId) ? await lockPairing(tx, pairingId) : null;
    if (!row || row.machineId !== machineId) throw MarketsErrors.notFound();
    return row;
  }

  private async newSession(pairingId: string, machineId: string, address: string, did: string | null, hash: string, now: Date) {
    const sessionId = newId("sess");
    const jti = newId("stok");
    let issued: Awaited<ReturnType<PairingTokens["issue"]>>;
    try {
      issued = await this.tokens.issue({ machineId, pairingId, sessionId, agentAddress: address, agentDid: did, delegationPolicyHash: hash, jti }, now.getTime());
    } catch {
      throw MarketsErrors.pairingUnavailable();
    }
    return {
      token: issued.token,
      columns: {
        tokenHash: tokenHash(issued.token),
        tokenLastFour: issued.token.slice(-4),
        sessionId,
        sessionTokenId: jti,
        sessionIssuedAt: issued.issuedAt,
        sessionExpiresAt: issued.expiresAt,
      },
    };
  }

  /** Deletes pairing challenges that expired more than `graceSeconds` ago (the cleanup job). */
  async cleanup(graceSeconds: number): Promise<number> {
    const before = new Date(this.clock.now() - graceSeconds * 1000);
    const { count } = await this.store.read((prisma) => prisma.marketPairingChallenge.deleteMany({ where: { expiresAt: { lt: before } } }));
    return count;
  }
}
