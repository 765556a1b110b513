/**
 * What each policy kind means (docs/markets-policies.md): the shape of its `rules`, checked whole on create and
 * update (POLICY_RULES_INVALID: an unknown member, a wrong type, a value outside its set), and what a policy of the
 * kind lets a machine use. Every member is optional unless said otherwise; a list left out or empty does not restrict.
 *
 * - `access`: `allowedSkillKeys`, `deniedSkillKeys`, `allowedProviderKeys`, `deniedProviderKeys`, `allowedServiceIds`,
 *   `deniedServiceIds` (string lists): the skills, providers and services the machine may use.
 * - `routing`: `executionModes` (`native`, `external-handoff`), `regions` (the service's region, `global` included
 *   only when listed): where the machine's work may be routed.
 * - `compliance`: `maturities` (`reference`, `beta`, `production`), `accessModes` (`public`, `credentialed`,
 *   `partner-approved`, `whitelisted`, `local`), `allowHumanEnablement` (boolean, default true): which kinds of
 *   provider the machine may deal with.
 * - `spend`: `perTransactionLimit`, `dailyLimit` (decimal amounts, at most 6 decimals, 0..1e12; at least one of the
 *   two), `currency` (3 to 10 upper-case letters or digits): the machine's spend across all its pairings.
 * - `custom`: any JSON object, stored and audited, never applied.
 */
import { MarketsErrors } from "../common/errors.js";
import type { JsonObject } from "../common/support.js";

export const POLICY_KINDS = ["spend", "access", "routing", "compliance", "custom"] as const;
export type PolicyKind = (typeof POLICY_KINDS)[number];

const policyRulesInvalid = MarketsErrors.policyRulesInvalid;

const EXECUTION_MODES = ["native", "external-handoff"];
const MATURITIES = ["reference", "beta", "production"];
const ACCESS_MODES = ["public", "credentialed", "partner-approved", "whitelisted", "local"];
const KEY = /^[A-Za-z0-9._:-]{1,100}$/;
const MAX_LIST = 100;
const MAX_LIMIT = 1e12;

export interface AccessRules {
  allowedSkillKeys: string[];
  deniedSkillKeys: string[];
  allowedProviderKeys: string[];
  deniedProviderKeys: string[];
  allowedServiceIds: string[];
  deniedServiceIds: string[];
}
export interface RoutingRules {
  executionModes: string[];
  regions: string[];
}
export interface ComplianceRules {
  maturities: string[];
  accessModes: string[];
  allowHumanEnablement: boolean;
}
export interface SpendRules {
  perTransactionLimit: number | null;
  dailyLimit: number | null;
  currency: string | null;
}

export type ParsedRules =
  | { kind: "access"; rules: AccessRules }
  | { kind: "routing"; rules: RoutingRules }
  | { kind: "compliance"; rules: ComplianceRules }
  | { kind: "spend"; rules: SpendRules }
  | { kind: "custom"; rules: JsonObject };

/** What a policy is checked against: the service a task, order or purchase of `machineId` uses. */
export interface PolicySubject {
  machineId: string;
  skillKey: string;
  providerKey: string;
  serviceId: string;
  executionMode: string;
  region: string;
  maturity: string | null;
  accessMode: string | null;
  requiresHumanEnablement: boolean;
}

function members(rules: JsonObject, known: readonly string[]): void {
  if (Object.keys(rules).some((key) => !known.includes(key))) throw policyRulesInvalid();
}

function list(value: unknown, allowed?: readonly string[]): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || value.length > MAX_LIST) throw policyRulesInvalid();
  for (const entry of value) {
    if (typeof entry !== "string" || !KEY.test(entry) || (allowed && !allowed.includes(entry))) throw policyRulesInvalid();
  }
  return [...new Set(value as string[])].sort();
}

function limit(value: unknown): number | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0 || value > MAX_LIMIT || Math.round(value * 1e6) / 1e6 !== value) {
    throw policyRulesInvalid();
  }
  return value;
}

/** The rules of a `kind` policy, or POLICY_RULES_INVALID. */
export function parseRules(kind: PolicyKind, rules: JsonObject): ParsedRules {
  switch (kind) {
    case "access": {
      const names = ["allowedSkillKeys", "deniedSkillKeys", "allowedProviderKeys", "deniedProviderKeys", "allowedServiceIds", "deniedServiceIds"] as const;
      members(rules, names);
      const parsed = Object.fromEntries(names.map((name) => [name, list(rules[name])])) as unknown as AccessRules;
      return { kind, rules: parsed };
    }
    case "routing":
      members(rules, ["executionModes", "regions"]);
      return { kind, rules: { executionModes: list(rules.executionModes, EXECUTION_MODES), regions: list(rules.regions) } };
    case "compliance": {
      members(rules, ["maturities", "accessModes", "allowHumanEnablement"]);
      const human = rules.allowHumanEnablement;
      if (human !== undefined && human !== null && typeof human !== "boolean") throw policyRulesInvalid();
      return { kind, rules: { maturities: list(rules.maturities, MATURITIES), accessModes: list(rules.accessModes, ACCESS_MODES), allowHumanEnablement: human !== false } };
    }
    case "spend": {
      members(rules, ["perTransactionLimit", "dailyLimit", "currency"]);
      const currency = rules.currency ?? null;
      if (currency !== null && (typeof currency !== "string" || !/^[A-Z0-9]{3,10}$/.test(currency))) throw policyRulesInvalid();
      const parsed = { perTransactionLimit: limit(rules.perTransactionLimit), dailyLimit: limit(rules.dailyLimit), currency };
      if (parsed.perTransactionLimit === null && parsed.dailyLimit === null) throw policyRulesInvalid();
      return { kind, rules: parsed };
    }
    case "custom":
      return { kind, rules };
  }
}

/** The rules as they are applied, or null when a stored policy's rules do not parse (such a policy is not applied). */
export function storedRules(kind: string, rules: unknown): ParsedRules | null {
  if (!(POLICY_KINDS as readonly string[]).includes(kind) || rules === null || typeof rules !== "object" || Array.isArray(rules)) return null;
  try {
    return parseRules(kind as PolicyKind, rules as JsonObject);
  } catch {
    return null;
  }
}

const listed = (allow: string[], deny: string[], value: string | null) =>
  !(value !== null && deny.includes(value)) && (allow.length === 0 || (value !== null && allow.includes(value)));

/** Does an access, routing or compliance policy let the machine use the subject's service? (spend and custom: yes) */
export function allowsUse(parsed: ParsedRules, subject: PolicySubject): boolean {
  switch (parsed.kind) {
    case "access": {
      const r = parsed.rules;
      return (
        listed(r.allowedSkillKeys, r.deniedSkillKeys, subject.skillKey) &&
        listed(r.allowedProviderKeys, r.deniedProviderKeys, subject.providerKey) &&
        listed(r.allowedServiceIds, r.deniedServiceIds, subject.serviceId)
      );
    }
    case "routing":
      return listed(parsed.rules.executionModes, [], subject.executionMode) && listed(parsed.rules.regions, [], subject.region);
    case "compliance":
      return (
        listed(parsed.rules.maturities, [], subject.maturity) &&
        listed(parsed.rules.accessModes, [], subject.accessMode) &&
        (parsed.rules.allowHumanEnablement || !subject.requiresHumanEnablement)
      );
    default:
      return true;
  }
}
