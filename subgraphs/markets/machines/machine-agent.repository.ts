/**
 * The heartbeat's database work as ONE statement (it is the markets API's hottest write), outside any interactive
 * transaction: a data-modifying CTE that locks the agent holding the token hash (against a concurrent revocation) and
 * reads its machine, and only when the agent is not revoked, every reported provider key is allowed and the machine
 * is active and identity-verified, upserts the endpoints, marks the agent active and inserts the
 * `machine-agent.heartbeat` audit event. A single statement is its own transaction: the change and its audit event
 * commit together or not at all. The statement answers the agent row it found (or none), so the service names the
 * refusal in its documented order; a refused heartbeat has written nothing.
 *
 * It commits with `synchronous_commit = off` (set by the statement, for its own transaction only): it does not wait
 * for the WAL flush. It stays atomic; a database crash can lose the last fraction of a second of heartbeats, which
 * only makes their leases shorter, as if those heartbeats had not been sent. Every other write of the markets API
 * commits synchronously.
 */
import type { SqlStatement } from "../../shared/db/sql-session.js";
import type { AuditActor, MarketsTx } from "../common/audit.repository.js";
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

export interface HeartbeatWrite {
  /** The agent holding the token hash, as locked by the statement; null when no agent holds it. */
  agent: HeartbeatAgent | null;
  /** The endpoints written (empty when the heartbeat was refused). */
  written: Array<{ providerKey: string; createdAt: Date }>;
}

type Row = HeartbeatAgent & { asyncCommit?: string; written: Array<{ providerKey: string; createdAt: string }> };

/** What a heartbeat reports, prepared by the service (provider keys lowercased, URLs normalised, tokens sealed). */
export interface HeartbeatReport {
  providerKey: string;
  values: EndpointValues;
}

export class MachineAgentRepository {
  /** A plain read of the agent holding this token hash (the cold paths: a heartbeat body to refuse, a token to seal). */
  async findByToken(db: MarketsTx, tokenHash: Uint8Array<ArrayBuffer>): Promise<{ machineId: string; status: string } | null> {
    const [row] = await db.$queryRaw<Array<{ machineId: string; status: string }>>`
      SELECT machine_id AS "machineId", status FROM market_machine_agent WHERE token_hash = ${tokenHash}`;
    return row ?? null;
  }

  /**
   * The whole heartbeat in one statement (see the file comment). `sql` runs it as its own transaction (the pool on
   * PostgreSQL: Database.statement) or, in tests, inside an interactive transaction.
   */
  async heartbeat(
    sql: SqlStatement,
    tokenHash: Uint8Array<ArrayBuffer>,
    reports: HeartbeatReport[],
    now: Date,
    leaseExpiresAt: Date,
    /** Global rule 1's chain verdict for the agent's machine, taken before the statement (false: nothing is written). */
    identityHolds: boolean,
  ): Promise<HeartbeatWrite> {
    const keys = reports.map((report) => report.providerKey);
    const actor: AuditActor["type"] = "machine-agent";
    const params: unknown[] = [];
    const $ = (value: unknown) => `$${params.push(value)}`;
    const hash = $(Buffer.from(tokenHash.buffer, tokenHash.byteOffset, tokenHash.byteLength));
    const at = $(now.toISOString());
    const lease = $(leaseExpiresAt.toISOString());
    // Every value is cast: in a VALUES list under SELECT the column types do not come from the target table.
    const values = reports.map(
      ({ providerKey, values: v }) => `(${$(providerKey)}::text, ${$(v.source)}::text, ${$(v.endpointBaseUrl)}::text,
        ${$(v.label)}::text, ${$(v.authType)}::text, ${$(v.authTokenCipher && Buffer.from(v.authTokenCipher))}::bytea,
        ${$(v.modelAlias)}::text, ${$(v.networkScope)}::text, ${$(v.probePath)}::text, ${$(v.status)}::text)`,
    );
    const [row] = await sql<Row>(
      `WITH locked AS (
        SELECT a.id, a.machine_id AS "machineId", a.label, a.status, a.allowed_provider_keys AS "allowedProviderKeys",
          a.revoked_at AS "revokedAt", a.created_at AS "createdAt", m.status AS "machineStatus",
          m.identity_verified AS "machineVerified", set_config('synchronous_commit', 'off', true) AS "asyncCommit"
        FROM market_machine_agent a JOIN market_machine m ON m.id = a.machine_id
        WHERE a.token_hash = ${hash}::bytea
        FOR UPDATE OF a
      ),
      ok AS (
        SELECT id, "machineId" FROM locked
        WHERE status <> 'revoked' AND "allowedProviderKeys" @> ${$(keys)}::text[] AND "machineVerified" AND "machineStatus" = 'active'
          AND ${$(identityHolds)}::boolean
      ),
      upserted AS (
        INSERT INTO market_runtime_endpoint AS e (machine_id, provider_key, source, endpoint_base_url, label, auth_type,
          auth_token_cipher, model_alias, network_scope, probe_path, status, lease_expires_at, agent_id, created_at, updated_at)
        SELECT ok."machineId", v.provider_key, v.source, v.endpoint_base_url, v.label, v.auth_type, v.auth_token_cipher,
          v.model_alias, v.network_scope, v.probe_path, v.status, ${lease}::timestamptz, ok.id,
          ${at}::timestamptz, ${at}::timestamptz
        FROM ok CROSS JOIN (VALUES ${values.join(", ")}) AS v(provider_key, source, endpoint_base_url, label, auth_type,
          auth_token_cipher, model_alias, network_scope, probe_path, status)
        ON CONFLICT (machine_id, provider_key) DO UPDATE SET source = EXCLUDED.source,
          endpoint_base_url = EXCLUDED.endpoint_base_url, label = EXCLUDED.label, auth_type = EXCLUDED.auth_type,
          auth_token_cipher = EXCLUDED.auth_token_cipher, model_alias = EXCLUDED.model_alias,
          network_scope = EXCLUDED.network_scope, probe_path = EXCLUDED.probe_path, status = EXCLUDED.status,
          lease_expires_at = EXCLUDED.lease_expires_at, agent_id = EXCLUDED.agent_id, updated_at = EXCLUDED.updated_at
        RETURNING e.provider_key, e.created_at
      ),
      agent AS (
        UPDATE market_machine_agent SET status = 'active', last_seen_at = ${at}::timestamptz, updated_at = ${at}::timestamptz
        WHERE id IN (SELECT id FROM ok) RETURNING id
      ),
      audit AS (
        INSERT INTO market_audit_event (kind, machine_id, actor_type, actor_id, occurred_at, data)
        SELECT 'machine-agent.heartbeat', ok."machineId", ${$(actor)}::text, ok.id, ${at}::timestamptz,
          jsonb_build_object('agentId', ok.id, 'providerKeys', ${$(JSON.stringify(keys))}::jsonb, 'leaseExpiresAt', ${lease}::text)
        FROM ok RETURNING id
      )
      SELECT locked.*, (SELECT coalesce(json_agg(json_build_object('providerKey', provider_key, 'createdAt', created_at)), '[]'::json)
        FROM upserted) AS written
      FROM locked`,
      params,
    );
    if (!row) return { agent: null, written: [] };
    const { asyncCommit: _, written, ...agent } = row;
    return { agent, written: written.map((w) => ({ providerKey: w.providerKey, createdAt: new Date(w.createdAt) })) };
  }
}
