/**
 * Stream ingest of a seller's agent (public notes 3.3): heartbeat, event envelopes (single and batch) and their
 * chain receipts.
 *
 * An event's machine and agent are the envelope's `machineId` / `agentId` (the body may repeat them; they must agree):
 * credentials first (AGENT_AUTH_*), then the envelope with the formats library (shape, payloadHash, Ed25519 signature
 * by one of the machine's ACTIVE registered keys; ENVELOPE_* / SIGNER_UNKNOWN), then its policy (the machine's,
 * NOT_FOUND; `active`, STREAM_POLICY_INACTIVE). The receipt is one row per (machine, agent, topic, sequenceNumber):
 * the same sequence with the same payloadHash answers the existing receipt (200), with another one
 * EVENT_SEQUENCE_CONFLICT. A batch (1..100 envelopes of one agent) is all or nothing.
 */
import { randomBytes } from "node:crypto";
import type { StreamEvent } from "../../../shared/db/generated/client.js";
import type { Clock } from "../../../shared/clock.js";
import { recordAuditEvent, type MarketsTx } from "../../common/audit.repository.js";
import { MarketsErrors } from "../../common/errors.js";
import { authenticateStreamAgent, type AgentCredentials } from "./agent.auth.js";
import { formatCheck, fromFormatError, StreamErrors } from "./seller.errors.js";
import { findPolicy } from "./stream-policy.service.js";
import { StreamFormatError } from "../errors.js";
import { fromHex } from "../encoding.js";
import { verifyEnvelope } from "../envelope.js";
import type { MarketsStore } from "../../common/store.js";

export const MAX_BATCH = 100;
const RECEIPT_ID = /^sevt_[0-9a-f]{24}$/;
const TX_HASH = /^0x[0-9a-f]{64}$/;
const DATA_HASH = /^(sha256:|0x)[0-9a-f]{64}$/;

export interface EventReceipt {
  id: string;
  machineId: string;
  agentId: string;
  topic: string;
  sequenceNumber: number;
  payloadHash: string;
  policyId: string | null;
  policyVersion: number | null;
  receivedAt: string;
  chainReceipt: { txHash: string; dataHash: string; recordedAt: string } | null;
}

export const receiptView = (row: StreamEvent): EventReceipt => ({
  id: row.id,
  machineId: row.machineId,
  agentId: row.agentId,
  topic: row.topic,
  sequenceNumber: Number(row.sequenceNumber),
  payloadHash: row.payloadHash,
  policyId: row.policyId,
  policyVersion: row.policyVersion,
  receivedAt: row.receivedAt.toISOString(),
  chainReceipt: row.chainTxHash && row.chainDataHash && row.chainAt
    ? { txHash: row.chainTxHash, dataHash: row.chainDataHash, recordedAt: row.chainAt.toISOString() }
    : null,
});

const malformed = () => fromFormatError(new StreamFormatError("ENVELOPE_MALFORMED", "envelope"));
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

export class StreamEventService {
  constructor(
    private readonly store: MarketsStore,
    private readonly clock: Clock,
  ) {}

  async heartbeat(machineId: string, credentials: AgentCredentials, policyId: string | null | undefined) {
    return this.store.write(async (tx) => {
      const { agent } = await authenticateStreamAgent(this.store, tx, machineId, credentials);
      const policy = policyId == null ? null : await findPolicy(tx, machineId, policyId);
      if (policy && policy.status !== "active") throw StreamErrors.policyInactive();
      const now = new Date(this.clock.now());
      await tx.marketMachineAgent.update({ where: { id: agent.id }, data: { status: "active", lastSeenAt: now, updatedAt: now } });
      await recordAuditEvent(tx, {
        kind: "stream.heartbeat",
        machineId,
        actor: { type: "machine-agent", id: agent.id },
        occurredAt: now,
        data: { agentId: agent.id, policyId: policy?.id ?? null, policyVersion: policy?.version ?? null },
      });
      return { machineId, agentId: agent.id, policyId: policy?.id ?? null, policyVersion: policy?.version ?? null, receivedAt: now.toISOString() };
    });
  }

  /** One envelope: the receipt and whether it was created (201) or already there (200). */
  async record(credentials: AgentCredentials & { machineId?: string | null }, envelope: unknown): Promise<{ created: boolean; receipt: EventReceipt }> {
    return this.store.write(async (tx) => this.recordIn(tx, credentials, envelope));
  }

  async recordBatch(credentials: AgentCredentials & { machineId?: string | null }, envelopes: unknown[]): Promise<EventReceipt[]> {
    if (!credentials.agentToken) throw MarketsErrors.agentAuthRequired();
    if (envelopes.length === 0 || envelopes.length > MAX_BATCH) throw MarketsErrors.validation();
    return this.store.write(async (tx) => {
      const receipts: EventReceipt[] = [];
      for (const envelope of envelopes) receipts.push((await this.recordIn(tx, credentials, envelope)).receipt);
      const agents = new Set(receipts.map((r) => `${r.machineId}/${r.agentId}`));
      if (agents.size !== 1) throw malformed();
      return receipts;
    });
  }

  async chainReceipt(
    receiptId: string,
    credentials: AgentCredentials & { machineId: string },
    input: { txHash: string; dataHash: string },
  ): Promise<EventReceipt> {
    return this.store.write(async (tx) => {
      const { agent } = await authenticateStreamAgent(this.store, tx, credentials.machineId, credentials);
      const row = RECEIPT_ID.test(receiptId) ? await tx.streamEvent.findUnique({ where: { id: receiptId } }) : null;
      if (!row || row.machineId !== credentials.machineId) throw MarketsErrors.notFound();
      if (!TX_HASH.test(input.txHash) || !DATA_HASH.test(input.dataHash)) throw MarketsErrors.validation();
      if (row.chainTxHash !== null) {
        if (row.chainTxHash === input.txHash && row.chainDataHash === input.dataHash) return receiptView(row);
        throw StreamErrors.chainReceiptExists();
      }
      const now = new Date(this.clock.now());
      const updated = await tx.streamEvent.update({ where: { id: row.id }, data: { chainTxHash: input.txHash, chainDataHash: input.dataHash, chainAt: now } });
      await recordAuditEvent(tx, {
        kind: "stream.event.chain-receipt",
        machineId: row.machineId,
        actor: { type: "machine-agent", id: agent.id },
        occurredAt: now,
        data: { receiptId: row.id, txHash: input.txHash, dataHash: input.dataHash },
      });
      return receiptView(updated);
    });
  }

  private async recordIn(tx: MarketsTx, credentials: AgentCredentials & { machineId?: string | null }, envelope: unknown) {
    if (!credentials.agentToken) throw MarketsErrors.agentAuthRequired();
    if (!isObject(envelope) || typeof envelope.machineId !== "string" || typeof envelope.agentId !== "string") throw malformed();
    const agentId = credentials.agentId ?? envelope.agentId;
    if (agentId !== envelope.agentId || (credentials.machineId != null && credentials.machineId !== envelope.machineId)) throw malformed();
    const { agent, machine } = await authenticateStreamAgent(this.store, tx, envelope.machineId, { agentId, agentToken: credentials.agentToken });
    const keys = await tx.streamSigningKey.findMany({ where: { machineId: machine.id, status: "active" } });
    const checked = formatCheck(() => verifyEnvelope(envelope, (keyId) => {
      const key = keys.find((k) => k.keyId === keyId);
      return key ? fromHex(key.publicKeyHex, 32) ?? undefined : undefined;
    }));
    const policy = await findPolicy(tx, machine.id, checked.policyId);
    if (policy.status !== "active") throw StreamErrors.policyInactive();
    const key = { machineId: machine.id, agentId: agent.id, topic: checked.topic, sequenceNumber: BigInt(checked.sequenceNumber) };
    const existing = await tx.streamEvent.findUnique({ where: { machineId_agentId_topic_sequenceNumber: key } });
    if (existing) {
      if (existing.payloadHash !== checked.payloadHash) throw StreamErrors.eventSequenceConflict();
      return { created: false, receipt: receiptView(existing) };
    }
    const now = new Date(this.clock.now());
    const row = await tx.streamEvent.create({
      data: {
        id: `sevt_${randomBytes(12).toString("hex")}`,
        ...key,
        policyId: checked.policyId,
        policyVersion: checked.policyVersion,
        payloadHash: checked.payloadHash,
        envelope: checked as never,
        receivedAt: now,
      },
    });
    await recordAuditEvent(tx, {
      kind: "stream.event.received",
      machineId: machine.id,
      actor: { type: "machine-agent", id: agent.id },
      occurredAt: now,
      data: { receiptId: row.id, topic: row.topic, sequenceNumber: checked.sequenceNumber, payloadHash: row.payloadHash },
    });
    return { created: true, receipt: receiptView(row) };
  }
}
