/**
 * The audit family: reading the audit log (`GET /audit-events`). Every family writes its events through
 * `recordAuditEvent` (common/audit.repository.ts) inside its own transaction; this family only reads them.
 */
import type { SubgraphRuntime } from "../../shared/runtime.js";
import { AuditResolver } from "./audit.resolver.js";
import { AuditService } from "./audit.service.js";

export interface AuditServices {
  audit: AuditService;
}

export const AUDIT_RESOLVERS = [AuditResolver] as const;

export function buildAuditServices(runtime: SubgraphRuntime): AuditServices {
  return { audit: new AuditService(runtime.db, runtime.log) };
}
