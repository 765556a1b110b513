/**
 * The heartbeat's database work in two statements (it is the markets API's hottest write): the agent with its
 * machine, locked against a concurrent revocation; then one data-modifying statement that upserts the endpoints,
 * marks the agent active and writes the audit event.
 *
 * The heartbeat transaction commits with `synchronous_commit = off` (set by its first statement, for that
 * transaction only): it does not wait for the WAL flush. It stays atomic (change and audit event together); a
 * database crash can lose the last fraction of a second of heartbeats, which only makes their leases shorter, as if
 * those heartbeats had not been sent. Every other write of the markets API commits synchronously.
 */
import { Prisma } from "../shared/db/index.js";
import { auditEventInsertSql, type AuditEventInput, type MarketsTx } from "./audit.repository.js";
import type { EndpointValues } from "./runtime-endpoint.repository.js";

export interface HeartbeatAgent {
  id: string;
  machineId: string;
  label: string;
  status: string;
  allowedProviderKeys: string[];
  revokedAt: Date | null;
  createdAt: Date;
  machineStatus: string;
  machineVerified: boolean;
}

/** The row of lockByToken, with the set_config column it carries. */
type LockedRow = HeartbeatAgent & { asyncCommit?: string };

export class MachineAgentRepository {
  /** The agent holding this token hash and its machine's state, the agent row locked until the transaction ends. */
  async lockByToken(tx: MarketsTx, tokenHash: Uint8Array<ArrayBuffer>): Promise<HeartbeatAgent | null> {
    const [row] = await tx.$queryRaw<LockedRow[]>`
      SELECT a.id, a.machine_id AS "machineId", a.label, a.status, a.allowed_provider_keys AS "allowedProviderKeys",
        a.revoked_at AS "revokedAt", a.created_at AS "createdAt", m.status AS "machineStatus", m.identity_verified AS "machineVerified",
        set_config('synchronous_commit', 'off', true) AS "asyncCommit"
      FROM market_machine_agent a JOIN market_machine m ON m.id = a.machine_id
      WHERE a.token_hash = ${tokenHash}
      FOR UPDATE OF a`;
    if (!row) return null;
    delete row.asyncCommit;
    return row;
  }

  /** Upserts the reported endpoints (by provider key), marks the agent active and writes `audit`; one statement. */
  async recordHeartbeat(
    tx: MarketsTx,
    agent: HeartbeatAgent,
    endpoints: Array<{ providerKey: string; values: EndpointValues }>,
    now: Date,
    audit: AuditEventInput,
  ): Promise<Array<{ providerKey: string; createdAt: Date }>> {
    const rows = endpoints.map(
      ({ providerKey, values: v }) => Prisma.sql`(${agent.machineId}, ${providerKey}, ${v.source}, ${v.endpointBaseUrl}, ${v.label},
        ${v.authType}, ${v.authTokenCipher}, ${v.modelAlias}, ${v.networkScope}, ${v.probePath}, ${v.status}, ${v.leaseExpiresAt},
        ${v.agentId}, ${now}, ${now})`,
    );
    return tx.$queryRaw<Array<{ providerKey: string; createdAt: Date }>>`
      WITH upserted AS (
        INSERT INTO market_runtime_endpoint AS e (machine_id, provider_key, source, endpoint_base_url, label, auth_type,
          auth_token_cipher, model_alias, network_scope, probe_path, status, lease_expires_at, agent_id, created_at, updated_at)
        VALUES ${Prisma.join(rows)}
        ON CONFLICT (machine_id, provider_key) DO UPDATE SET source = EXCLUDED.source,
          endpoint_base_url = EXCLUDED.endpoint_base_url, label = EXCLUDED.label, auth_type = EXCLUDED.auth_type,
          auth_token_cipher = EXCLUDED.auth_token_cipher, model_alias = EXCLUDED.model_alias,
          network_scope = EXCLUDED.network_scope, probe_path = EXCLUDED.probe_path, status = EXCLUDED.status,
          lease_expires_at = EXCLUDED.lease_expires_at, agent_id = EXCLUDED.agent_id, updated_at = EXCLUDED.updated_at
        RETURNING e.provider_key AS "providerKey", e.created_at AS "createdAt"
      ),
      agent AS (
        UPDATE market_machine_agent SET status = 'active', last_seen_at = ${now}, updated_at = ${now} WHERE id = ${agent.id} RETURNING id
      ),
      audit AS (${auditEventInsertSql(audit)} RETURNING id)
      SELECT "providerKey", "createdAt" FROM upserted`;
  }
}
