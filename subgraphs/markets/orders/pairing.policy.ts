/**
 * The delegation policy of an agent pairing (public notes 2.3): allow and deny lists of skill keys and service IDs,
 * a per-transaction limit, a daily spend limit and their currency. Stored normalised (lists sorted and unique, absent
 * members as `[]` / null); `delegationPolicyHash` is the SHA-256 (lowercase hex) of its RFC 8785 (JCS) form, carried
 * in every session token and compared with the stored one on every market write.
 *
 * Enforcement on a market order (orders/order.service.ts) and a stream purchase (stream/purchases/purchase.service.ts),
 * both through `checkDelegation`: denied skill or service, or an allow list that does not name it -> AGENT_POLICY_DENIED;
 * a priced spend in another currency than the policy's -> AGENT_POLICY_DENIED; amount over perTransactionLimit ->
 * AGENT_SPEND_LIMIT_EXCEEDED; the pairing's spend of the current UTC day (its orders and purchases, summed in the
 * database under the pairing's row lock) plus the amount over dailySpendLimit -> AGENT_DAILY_LIMIT_EXCEEDED.
 */
import { createHash } from "node:crypto";
import canonicalize from "canonicalize";
import type { MarketsSql } from "../common/sql.js";
import { MarketsErrors } from "../common/errors.js";
import { withinDailyLimit } from "./order.repository.js";

export interface DelegationPolicy {
  allowedSkillKeys: string[];
  deniedSkillKeys: string[];
  allowedServiceIds: string[];
  deniedServiceIds: string[];
  perTransactionLimit: number | null;
  dailySpendLimit: number | null;
  currency: string | null;
}

export type DelegationPolicyInput = Partial<{ [K in keyof DelegationPolicy]: DelegationPolicy[K] | null | undefined }>;

const MAX_LIST = 100;
const KEY = /^[A-Za-z0-9._:-]{1,100}$/;
/** Limits are decimal amounts of `currency` with at most 6 decimals, 0..1e12. */
const MAX_LIMIT = 1e12;

function list(value: string[] | null | undefined): string[] {
  if (value === null || value === undefined) return [];
  if (value.length > MAX_LIST || value.some((entry) => !KEY.test(entry))) throw MarketsErrors.validation();
  return [...new Set(value)].sort();
}

function limit(value: number | null | undefined): number | null {
  if (value === null || value === undefined) return null;
  if (!Number.isFinite(value) || value < 0 || value > MAX_LIMIT || Math.round(value * 1e6) / 1e6 !== value) throw MarketsErrors.validation();
  return value;
}

export function normalizePolicy(input: DelegationPolicyInput | null | undefined): DelegationPolicy {
  const source = input ?? {};
  const currency = source.currency ?? null;
  if (currency !== null && !/^[A-Z0-9]{3,10}$/.test(currency)) throw MarketsErrors.validation();
  return {
    allowedSkillKeys: list(source.allowedSkillKeys),
    deniedSkillKeys: list(source.deniedSkillKeys),
    allowedServiceIds: list(source.allowedServiceIds),
    deniedServiceIds: list(source.deniedServiceIds),
    perTransactionLimit: limit(source.perTransactionLimit),
    dailySpendLimit: limit(source.dailySpendLimit),
    currency,
  };
}

/** SHA-256 hex of the policy's RFC 8785 canonical JSON. */
export function policyHash(policy: DelegationPolicy): string {
  return createHash("sha256").update(canonicalize(policy)!, "utf8").digest("hex");
}

/** Allow and deny lists: AGENT_POLICY_DENIED when the skill or service is denied or not allowed. */
export function checkLists(policy: DelegationPolicy, skillKey: string, serviceId: string): void {
  if (policy.deniedSkillKeys.includes(skillKey) || policy.deniedServiceIds.includes(serviceId)) throw MarketsErrors.delegationDenied();
  if (policy.allowedSkillKeys.length > 0 && !policy.allowedSkillKeys.includes(skillKey)) throw MarketsErrors.delegationDenied();
  if (policy.allowedServiceIds.length > 0 && !policy.allowedServiceIds.includes(serviceId)) throw MarketsErrors.delegationDenied();
}

/** The per-transaction limit and the currency (the daily limit needs the database: orders/order.repository.ts). */
export function checkAmount(policy: DelegationPolicy, amount: string, currency: string | null): void {
  const limited = policy.perTransactionLimit !== null || policy.dailySpendLimit !== null;
  if (limited && policy.currency !== null && currency !== null && Number(amount) > 0 && currency !== policy.currency) {
    throw MarketsErrors.delegationDenied();
  }
  if (policy.perTransactionLimit !== null && Number(amount) > policy.perTransactionLimit) throw MarketsErrors.agentSpendLimitExceeded();
}

/**
 * The whole delegation check of a spend (an order or a purchase) inside its transaction, the pairing row locked by
 * PairingService.authenticate: lists, currency, per-transaction limit, then the day's sum.
 */
export async function checkDelegation(
  tx: MarketsSql,
  pairingId: string,
  policy: DelegationPolicy,
  target: { skillKey: string; serviceId: string },
  spend: { amount: string; currency: string | null },
  now: Date,
): Promise<void> {
  checkLists(policy, target.skillKey, target.serviceId);
  checkAmount(policy, spend.amount, spend.currency);
  if (policy.dailySpendLimit !== null && !(await withinDailyLimit(tx, pairingId, spend.amount, policy.dailySpendLimit, now))) {
    throw MarketsErrors.agentDailyLimitExceeded();
  }
}
