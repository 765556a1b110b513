/**
 * Applying the policies (`/policies`, docs/markets-policies.md) to a machine's task execution, market orders and stream
 * purchases, inside the transaction of the change they guard.
 *
 * A policy applies to a machine when it is `active` and its `machineIds` is empty (every machine) or names the machine,
 * or the machine record's `policyIds` names the policy. Policies are read oldest first; the first refusal is the answer:
 * - `access`, `routing`, `compliance`: the service used is outside the rules -> MACHINE_POLICY_DENIED.
 * - `spend` (orders and purchases only; a task carries no spend): a priced spend in another currency than the policy's
 *   -> MACHINE_POLICY_DENIED; amount over `perTransactionLimit` -> MACHINE_SPEND_LIMIT_EXCEEDED; the machine's spend of
 *   the UTC day (orders and purchases of all its pairings, common/spend.repository.ts, in the policy's currency when
 *   it names one) plus the amount over `dailyLimit` -> MACHINE_DAILY_LIMIT_EXCEEDED. The machine's row is locked first,
 *   so spends of several pairings of one machine, on any instance, queue for the sum.
 * - `custom`, and a stored policy whose rules do not parse for its kind: not applied.
 */
import { statementOf, type MarketsSql } from "../common/sql.js";
import { MarketsErrors } from "../common/errors.js";
import { lockMachineSpend, withinDailySpend } from "../common/spend.repository.js";
import { allowsUse, storedRules, type ParsedRules, type PolicySubject } from "./policy.rules.js";

export type { PolicySubject };

/** The spend a policy check weighs: the order's or purchase's amount and currency, at `now`. */
export interface PolicySpend {
  amount: string;
  currency: string | null;
  now: Date;
}

/** The subject of a catalogue service (work/catalogue.service.ts `serviceView`) used by `machineId`. */
export function policySubjectOf(
  machineId: string,
  service: { id: string; skillKey: string; providerKey: string; executionMode: string; region: string; maturity?: string; accessMode?: string; requiresHumanEnablement?: boolean },
): PolicySubject {
  return {
    machineId,
    skillKey: service.skillKey,
    providerKey: service.providerKey,
    serviceId: service.id,
    executionMode: service.executionMode,
    region: service.region,
    maturity: service.maturity ?? null,
    accessMode: service.accessMode ?? null,
    requiresHumanEnablement: service.requiresHumanEnablement === true,
  };
}

/**
 * The active policies that apply to the machine, oldest first, with their parsed rules (unparseable ones left out).
 * `policyIds`: the machine's `policyIds` when the caller already read its row in this transaction (rule 1).
 */
export async function applicablePolicies(tx: MarketsSql, machineId: string, policyIds?: string[]): Promise<ApplicablePolicy[]> {
  const sql = statementOf(tx);
  const ids = policyIds ?? (await sql<{ policyIds: string[] }>(MACHINE_POLICY_IDS, [machineId]))[0]?.policyIds ?? [];
  return parsedPolicies(await sql<StoredPolicy>(APPLICABLE_POLICIES, [machineId, ids]));
}

export type ApplicablePolicy = { id: string; parsed: ParsedRules };
type StoredPolicy = { id: string; kind: string; rules: unknown };

/** Stored policies (oldest first) with their parsed rules; unparseable ones left out. */
export function parsedPolicies(rows: StoredPolicy[]): ApplicablePolicy[] {
  return rows.flatMap((row) => {
    const parsed = storedRules(row.kind, row.rules);
    return parsed ? [{ id: row.id, parsed }] : [];
  });
}

const MACHINE_POLICY_IDS = `SELECT policy_ids AS "policyIds" FROM market_machine WHERE id = $1`;
/** Active policies of the enforced kinds for every machine, naming the machine, or named by its `policyIds`. */
const APPLICABLE_WHERE = (machineId: string, policyIds: string) => `status = 'active' AND kind IN ('access', 'routing', 'compliance', 'spend')
    AND (cardinality(machine_ids) = 0 OR ${machineId} = ANY(machine_ids) OR id = ANY(${policyIds}))`;
const APPLICABLE_POLICIES = `SELECT id, kind, rules FROM markets_policy WHERE ${APPLICABLE_WHERE("$1::text", "$2::text[]")} ORDER BY created_at, id`;

/**
 * The same policies as one JSON array (`parsedPolicies` reads it), as a scalar subquery of a statement that reads the
 * machine row `m` (columns under their Prisma field names): its policies come with the machine's read.
 */
export const APPLICABLE_POLICIES_OF_M = `(SELECT COALESCE(json_agg(json_build_object('id', id, 'kind', kind, 'rules', rules) ORDER BY created_at, id), '[]'::json)
  FROM markets_policy WHERE ${APPLICABLE_WHERE("m.id", 'm."policyIds"')})`;

/** Refuses the use of the subject's service (and the spend, when given) that an applicable policy does not allow. */
export async function enforceMachinePolicies(tx: MarketsSql, subject: PolicySubject, spend: PolicySpend | null, policyIds?: string[]): Promise<void> {
  await enforcePolicies(tx, await applicablePolicies(tx, subject.machineId, policyIds), subject, spend);
}

/** `enforceMachinePolicies` with the applicable policies already read (`APPLICABLE_POLICIES_OF_M`). */
export async function enforcePolicies(tx: MarketsSql, policies: ApplicablePolicy[], subject: PolicySubject, spend: PolicySpend | null): Promise<void> {
  let locked = false;
  for (const { parsed } of policies) {
    if (!checkPolicy(parsed, subject, spend)) continue;
    if (!locked) {
      await lockMachineSpend(tx, subject.machineId);
      locked = true;
    }
    const rules = parsed.rules as { dailyLimit: number; currency: string | null };
    if (!(await withinDailySpend(tx, { machineId: subject.machineId }, spend!.amount, rules.dailyLimit, spend!.now, rules.currency))) {
      throw MarketsErrors.machineDailyLimitExceeded();
    }
  }
}

/**
 * Would `enforcePolicies` pass without reading the database: every policy allows the use and none has a daily limit
 * to sum? (Then it neither queries nor throws, and a caller may weigh its other checks first.)
 */
export function policiesPassWithoutSums(policies: ApplicablePolicy[], subject: PolicySubject, spend: PolicySpend | null): boolean {
  try {
    return policies.every(({ parsed }) => !checkPolicy(parsed, subject, spend));
  } catch {
    return false;
  }
}

/** One policy's checks that need no database; true when a daily limit remains to be summed. */
function checkPolicy(parsed: ParsedRules, subject: PolicySubject, spend: PolicySpend | null): boolean {
  if (!allowsUse(parsed, subject)) throw MarketsErrors.machinePolicyDenied();
  if (parsed.kind !== "spend" || spend === null) return false;
  const rules = parsed.rules;
  const currency = spend.currency === null ? null : spend.currency.toUpperCase();
  if (rules.currency !== null && currency !== null && currency !== rules.currency && Number(spend.amount) > 0) throw MarketsErrors.machinePolicyDenied();
  if (rules.perTransactionLimit !== null && Number(spend.amount) > rules.perTransactionLimit) throw MarketsErrors.machineSpendLimitExceeded();
  return rules.dailyLimit !== null;
}
