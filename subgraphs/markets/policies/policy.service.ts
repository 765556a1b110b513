/**
 * Cross-cutting policies: `GET/POST /policies`, `GET/PATCH /policies/:policyId`. Policy routes
 * skip the machine check (global rule 1). Each create and update writes `policy.created` / `policy.updated` in its
 * transaction. `rules` is a JSON object replaced whole on PATCH, checked against its kind (policy.rules.ts:
 * POLICY_RULES_INVALID) whenever the kind or the rules are written; `machineIds` scopes a policy (empty: all
 * machines). What the kinds mean and where they apply: policy.enforcement.ts, docs/markets-policies.md.
 */
import type { Clock } from "../../shared/clock.js";
import type { Database } from "../../shared/db/index.js";
import type { MarketsPolicy } from "../../shared/db/generated/client.js";
import { inStore } from "../../shared/db/in-store.js";
import { MarketsErrors } from "../common/errors.js";
import {
  PLATFORM_ACTOR,
  decodeCursor,
  invalid,
  jsonObject,
  newId,
  notFound,
  olderThan,
  oneOf,
  pageLimit,
  pageOf,
  text,
  type AuditWriter,
  type JsonObject,
  type Tx,
} from "../common/support.js";
import type { PageArgs } from "../work/task.service.js";
import { POLICY_KINDS, parseRules, type PolicyKind } from "./policy.rules.js";

export const POLICY_STATUSES = ["active", "disabled"] as const;
export { POLICY_KINDS };

export interface PolicyInput {
  name?: string | null;
  description?: string | null;
  kind?: string | null;
  status?: string | null;
  machineIds?: string[] | null;
  rules?: unknown;
}

export const policyView = (p: MarketsPolicy) => ({
  id: p.id,
  name: p.name,
  description: p.description,
  kind: p.kind,
  status: p.status,
  machineIds: p.machineIds,
  rules: p.rules as JsonObject,
  createdAt: p.createdAt.toISOString(),
  updatedAt: p.updatedAt.toISOString(),
});

export type PolicyView = ReturnType<typeof policyView>;

function machineIds(ids: string[]): string[] {
  if (ids.length > 100 || ids.some((id) => id.length === 0 || id.length > 100)) throw invalid();
  return [...new Set(ids)];
}

export class PolicyService {
  constructor(
    private readonly db: Database,
    private readonly audit: AuditWriter,
    private readonly clock: Clock,
    private readonly log: (error: unknown) => void,
  ) {}

  private transaction<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    return inStore(() => this.db.prisma.$transaction(work), MarketsErrors.storeUnavailable, this.log);
  }

  async create(input: PolicyInput): Promise<PolicyView> {
    const now = new Date(this.clock.now());
    const row = {
      id: newId("pol"),
      name: text(input.name, 200),
      description: input.description === null || input.description === undefined ? null : text(input.description, 2000),
      kind: oneOf(input.kind, POLICY_KINDS, "custom"),
      status: oneOf(input.status, POLICY_STATUSES, "active"),
      machineIds: machineIds(input.machineIds ?? []),
      rules: input.rules === null || input.rules === undefined ? {} : jsonObject(input.rules),
      createdAt: now,
      updatedAt: now,
    };
    parseRules(row.kind, row.rules);
    return this.transaction(async (tx) => {
      const policy = policyView(await tx.marketsPolicy.create({ data: row as never }));
      await this.audit(tx, { machineId: null, kind: "policy.created", actor: PLATFORM_ACTOR, entityType: "policy", entityId: policy.id, payload: { after: policy } });
      return policy;
    });
  }

  async update(policyId: string, input: PolicyInput): Promise<PolicyView> {
    const patch = {
      name: input.name === null || input.name === undefined ? undefined : text(input.name, 200),
      description: input.description === undefined ? undefined : input.description === null ? null : text(input.description, 2000),
      kind: input.kind === null || input.kind === undefined ? undefined : oneOf(input.kind, POLICY_KINDS),
      status: input.status === null || input.status === undefined ? undefined : oneOf(input.status, POLICY_STATUSES),
      machineIds: input.machineIds === null || input.machineIds === undefined ? undefined : machineIds(input.machineIds),
      rules: input.rules === null || input.rules === undefined ? undefined : (jsonObject(input.rules) as never),
    };
    return this.transaction(async (tx) => {
      const before = await tx.marketsPolicy.findUnique({ where: { id: policyId } });
      if (!before) throw notFound();
      if (patch.kind !== undefined || patch.rules !== undefined) {
        parseRules((patch.kind ?? before.kind) as PolicyKind, (patch.rules ?? before.rules) as JsonObject);
      }
      const after = await tx.marketsPolicy.update({ where: { id: policyId }, data: { ...patch, updatedAt: new Date(this.clock.now()) } });
      const policy = policyView(after);
      await this.audit(tx, { machineId: null, kind: "policy.updated", actor: PLATFORM_ACTOR, entityType: "policy", entityId: policyId, payload: { before: policyView(before), after: policy } });
      return policy;
    });
  }

  async get(policyId: string): Promise<PolicyView> {
    const row = await inStore(() => this.db.prisma.marketsPolicy.findUnique({ where: { id: policyId } }), MarketsErrors.storeUnavailable, this.log);
    if (!row) throw notFound();
    return policyView(row);
  }

  async list(page: PageArgs, filter: { status?: string | null; kind?: string | null }) {
    const limit = pageLimit(page.limit);
    const cursor = decodeCursor(page.cursor);
    const status = filter.status === null || filter.status === undefined ? undefined : oneOf(filter.status, POLICY_STATUSES);
    const kind = filter.kind === null || filter.kind === undefined ? undefined : oneOf(filter.kind, POLICY_KINDS);
    const rows = await inStore(
      () =>
        this.db.prisma.marketsPolicy.findMany({
          where: { status, kind, ...olderThan("createdAt", cursor) },
          orderBy: [{ createdAt: "desc" }, { id: "desc" }],
          take: limit + 1,
        }),
      MarketsErrors.storeUnavailable,
      this.log,
    );
    return pageOf(rows, limit, (p) => ({ at: p.createdAt, id: p.id }), policyView);
  }
}
