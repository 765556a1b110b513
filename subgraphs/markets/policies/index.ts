/**
 * The policies family: `/policies` records (policy.service.ts), what each kind's `rules` mean (policy.rules.ts) and
 * their enforcement on task execution, market orders and stream purchases (policy.enforcement.ts, called by the
 * work, orders and stream/purchases families inside their own transactions). `POLICY_RESOLVERS` are its GraphQL
 * resolver classes.
 */
import type { Clock } from "../../shared/clock.js";
import type { SubgraphRuntime } from "../../shared/runtime.js";
import { auditWriter, type AuditWriter } from "../common/support.js";
import { PolicyResolver } from "./policy.resolver.js";
import { PolicyService } from "./policy.service.js";

export interface PolicyServices {
  policies: PolicyService;
}

export const POLICY_RESOLVERS = [PolicyResolver] as const;

/** `audit`: tests wrap the audit writer to inject a failure after the write. */
export function buildPolicyServices(runtime: SubgraphRuntime, clock: Clock, audit: AuditWriter = auditWriter(clock)): PolicyServices {
  return { policies: new PolicyService(runtime.db, audit, clock, runtime.log) };
}
