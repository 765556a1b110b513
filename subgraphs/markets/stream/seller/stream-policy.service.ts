/**
 * Stream capture policies (public notes 3.3): `{ name, status, topicRules[], buffer, payload, destinations[] }` per
 * machine, written and read by the machine's stream agent. Every PATCH bumps `version` (an envelope names the policy
 * version it was captured under). Topic rule: `topic`, `messageType`, `qosPreset` (default | sensor_data | reliable),
 * `depth?` (1..1000), `fieldRules?[{ path, action (include | exclude | encrypt | anonymize | hash), publicKeyHex? }]`.
 */
import { randomBytes } from "node:crypto";
import type { StreamPolicy } from "../../../shared/db/generated/client.js";
import type { Clock } from "../../../shared/clock.js";
import { recordAuditEvent, type MarketsTx } from "../../common/audit.repository.js";
import { MarketsErrors } from "../../common/errors.js";
import { pageRequest, createdAtKeyset, createdAtPage } from "../../common/pagination.js";
import { authenticateStreamAgent, type AgentCredentials } from "./agent.auth.js";
import type { MarketsStore } from "../../common/store.js";

export const POLICY_STATUSES = ["active", "paused", "archived"] as const;
const QOS = ["default", "sensor_data", "reliable"];
const ACTIONS = ["include", "exclude", "encrypt", "anonymize", "hash"];
const POLICY_ID = /^spol_[0-9a-f]{24}$/;
const MAX_RULES = 64;
const MAX_JSON_BYTES = 16_384;

export interface PolicyInput {
  name?: string | null;
  status?: string | null;
  topicRules?: unknown[] | null;
  buffer?: Record<string, unknown> | null;
  payload?: Record<string, unknown> | null;
  destinations?: unknown[] | null;
}

export interface PolicyView {
  id: string;
  machineId: string;
  name: string;
  status: string;
  version: number;
  topicRules: unknown[];
  buffer: Record<string, unknown>;
  payload: Record<string, unknown>;
  destinations: unknown[];
  createdAt: string;
  updatedAt: string;
}

export const policyView = (row: StreamPolicy): PolicyView => ({
  id: row.id,
  machineId: row.machineId,
  name: row.name,
  status: row.status,
  version: row.version,
  topicRules: row.topicRules as unknown[],
  buffer: row.buffer as Record<string, unknown>,
  payload: row.payload as Record<string, unknown>,
  destinations: row.destinations as unknown[],
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
});

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const isText = (v: unknown, max = 256) => typeof v === "string" && v.length > 0 && v.length <= max;

function validTopicRule(rule: unknown): boolean {
  if (!isObject(rule) || !isText(rule.topic) || !isText(rule.messageType) || !QOS.includes(rule.qosPreset as string)) return false;
  if (rule.depth !== undefined && !(Number.isSafeInteger(rule.depth) && (rule.depth as number) >= 1 && (rule.depth as number) <= 1000)) return false;
  if (rule.fieldRules === undefined) return true;
  return Array.isArray(rule.fieldRules) && rule.fieldRules.length <= MAX_RULES && rule.fieldRules.every((f) =>
    isObject(f) && isText(f.path) && ACTIONS.includes(f.action as string)
    && (f.publicKeyHex === undefined || (typeof f.publicKeyHex === "string" && /^[0-9a-f]{64}$/.test(f.publicKeyHex)))
    && (f.action !== "encrypt" || f.publicKeyHex !== undefined));
}

/** The checked values of a create (all required but status) or a patch (all optional). */
function checked(input: PolicyInput, create: boolean): PolicyInput {
  const { name, status, topicRules, buffer, payload, destinations } = input;
  const ok = (create ? name != null && topicRules != null && buffer != null && payload != null && destinations != null : true)
    && (name == null || (name.trim().length > 0 && name.length <= 200))
    && (status == null || POLICY_STATUSES.includes(status as never))
    && (topicRules == null || (topicRules.length <= MAX_RULES && topicRules.every(validTopicRule)))
    && (destinations == null || (destinations.length <= 16 && destinations.every(isObject)))
    && Buffer.byteLength(JSON.stringify({ topicRules, buffer, payload, destinations })) <= MAX_JSON_BYTES;
  if (!ok) throw MarketsErrors.validation();
  return input;
}

export class StreamPolicyService {
  constructor(
    private readonly store: MarketsStore,
    private readonly clock: Clock,
  ) {}

  async create(machineId: string, credentials: AgentCredentials, input: PolicyInput): Promise<PolicyView> {
    return this.store.write(async (tx) => {
      const { agent } = await authenticateStreamAgent(this.store, tx, machineId, credentials);
      const values = checked(input, true);
      const now = new Date(this.clock.now());
      const row = await tx.streamPolicy.create({
        data: {
          id: `spol_${randomBytes(12).toString("hex")}`,
          machineId,
          name: values.name!,
          status: values.status ?? "active",
          version: 1,
          topicRules: values.topicRules as never,
          buffer: values.buffer as never,
          payload: values.payload as never,
          destinations: values.destinations as never,
          createdAt: now,
          updatedAt: now,
        },
      });
      await recordAuditEvent(tx, {
        kind: "stream.policy.created",
        machineId,
        actor: { type: "machine-agent", id: agent.id },
        occurredAt: now,
        data: { policyId: row.id, version: 1, status: row.status },
      });
      return policyView(row);
    });
  }

  async update(machineId: string, policyId: string, credentials: AgentCredentials, input: PolicyInput): Promise<PolicyView> {
    return this.store.write(async (tx) => {
      const { agent } = await authenticateStreamAgent(this.store, tx, machineId, credentials);
      const current = await findPolicy(tx, machineId, policyId);
      const values = checked(input, false);
      const now = new Date(this.clock.now());
      const row = await tx.streamPolicy.update({
        where: { id: current.id },
        data: {
          ...(values.name != null ? { name: values.name } : {}),
          ...(values.status != null ? { status: values.status } : {}),
          ...(values.topicRules != null ? { topicRules: values.topicRules as never } : {}),
          ...(values.buffer != null ? { buffer: values.buffer as never } : {}),
          ...(values.payload != null ? { payload: values.payload as never } : {}),
          ...(values.destinations != null ? { destinations: values.destinations as never } : {}),
          version: { increment: 1 },
          updatedAt: now,
        },
      });
      await recordAuditEvent(tx, {
        kind: "stream.policy.updated",
        machineId,
        actor: { type: "machine-agent", id: agent.id },
        occurredAt: now,
        data: { policyId: row.id, version: row.version, status: row.status },
      });
      return policyView(row);
    });
  }

  async list(machineId: string, credentials: AgentCredentials, limit: number | null | undefined, cursor: string | null | undefined) {
    const page = pageRequest(limit, cursor, 2);
    const keyset = createdAtKeyset(page);
    const rows = await this.store.read(async (prisma) => {
      await authenticateStreamAgent(this.store, prisma, machineId, credentials);
      return prisma.streamPolicy.findMany({
        where: { machineId, ...keyset.where },
        orderBy: keyset.orderBy,
        take: keyset.take,
      });
    });
    const { items, nextCursor } = createdAtPage(rows, page);
    return { items: items.map(policyView), nextCursor };
  }
}

/** The machine's policy (NOT_FOUND for an unknown ID or another machine's policy). */
export async function findPolicy(tx: MarketsTx, machineId: string, policyId: string): Promise<StreamPolicy> {
  const row = POLICY_ID.test(policyId) ? await tx.streamPolicy.findUnique({ where: { id: policyId } }) : null;
  if (!row || row.machineId !== machineId) throw MarketsErrors.notFound();
  return row;
}
