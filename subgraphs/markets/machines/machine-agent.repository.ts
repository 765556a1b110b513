/**
 * The heartbeat's database work as ONE statement (it is the markets API's hottest write), outside any interactive
 * transaction: a data-modifying CTE that locks the agent holding the token hash (against a concurrent revocation) and
 * reads its machine, and only when the agent is not revoked, every reported provider key is allowed and the machine
 * is active and identity-verified with the identity facts the service took the chain verdict for (global rule 1),
 * upserts the endpoints, marks the agent active and inserts the
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
  /** The machine's identity facts global rule 1's chain verdict reads (IdentityFacts), as the statement found them. */
  onChainMachineId: string | null;
  signerAddress: string | null;
}

/**
 * What global rule 1's chain verdict reads of a machine record besides its verified flag: the on-chain machine ID and
 * the stored proof's signer (null when the proof has no signer text; the verdict then asks whether the identity
 * resolves). The heartbeat takes the verdict for the facts it last saw and the statement writes only while the
 * record still has exactly those facts.
 */
export interface IdentityFacts {
  onChainMachineId: string | null;
  signerAddress: string | null;
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

/**
 * The statement's text for `count` reports, built once per count: parameters $1 token hash, $2 now, $3 lease end,
 * then ten per report (provider key, source, URL, label, auth type, sealed token, model alias, network scope, probe
 * path, status), then the provider keys as text[], the identity verdict, the actor type, the keys as JSON and the
 * identity facts the verdict was taken for (on-chain machine ID, signer). The
 * same string object each time keeps the prepared statement's name lookup (statement-names.ts) and pg's check of
 * the text against the prepared one cheap, and builds no string per heartbeat.
 */
const texts = new Map<number, string>();

function heartbeatText(count: number): string {
  let text = texts.get(count);
  if (text !== undefined) return text;
  const row = (i: number) => {
    const n = (k: number) => `$${4 + i * 10 + k}`;
    // Every value is cast: in a VALUES list under SELECT the column types do not come from the target table.
    return `(${n(0)}::text, ${n(1)}::text, ${n(2)}::text,
        ${n(3)}::text, ${n(4)}::text, ${n(5)}::bytea,
        ${n(6)}::text, ${n(7)}::text, ${n(8)}::text, ${n(9)}::text)`;
  };
  const values = Array.from({ length: count }, (_, i) => row(i)).join(", ");
  const next = 4 + count * 10;
  const [keys, holds, actor, keysJson, chainId, signer] = [`$${next}`, `$${next + 1}`, `$${next + 2}`, `$${next + 3}`, `$${next + 4}`, `$${next + 5}`];
  text = `WITH locked AS (
        SELECT a.id, a.machine_id AS "machineId", a.label, a.status, a.allowed_provider_keys AS "allowedProviderKeys",
          a.revoked_at AS "revokedAt", a.created_at AS "createdAt", m.status AS "machineStatus",
          m.identity_verified AS "machineVerified", m.on_chain_machine_id AS "onChainMachineId",
          CASE WHEN jsonb_typeof(m.identity_proof -> 'signerAddress') = 'string' THEN m.identity_proof ->> 'signerAddress' END AS "signerAddress",
          set_config('synchronous_commit', 'off', true) AS "asyncCommit"
        FROM market_machine_agent a JOIN market_machine m ON m.id = a.machine_id
        WHERE a.token_hash = $1::bytea
        FOR UPDATE OF a
      ),
      ok AS (
        SELECT id, "machineId" FROM locked
        WHERE status <> 'revoked' AND "allowedProviderKeys" @> ${keys}::text[] AND "machineVerified" AND "machineStatus" = 'active'
          AND ${holds}::boolean AND "onChainMachineId" = ${chainId}::text AND "signerAddress" IS NOT DISTINCT FROM ${signer}::text
      ),
      upserted AS (
        INSERT INTO market_runtime_endpoint AS e (machine_id, provider_key, source, endpoint_base_url, label, auth_type,
          auth_token_cipher, model_alias, network_scope, probe_path, status, lease_expires_at, agent_id, created_at, updated_at)
        SELECT ok."machineId", v.provider_key, v.source, v.endpoint_base_url, v.label, v.auth_type, v.auth_token_cipher,
          v.model_alias, v.network_scope, v.probe_path, v.status, $3::timestamptz, ok.id,
          $2::timestamptz, $2::timestamptz
        FROM ok CROSS JOIN (VALUES ${values}) AS v(provider_key, source, endpoint_base_url, label, auth_type,
          auth_token_cipher, model_alias, network_scope, probe_path, status)
        ON CONFLICT (machine_id, provider_key) DO UPDATE SET source = EXCLUDED.source,
          endpoint_base_url = EXCLUDED.endpoint_base_url, label = EXCLUDED.label, auth_type = EXCLUDED.auth_type,
          auth_token_cipher = EXCLUDED.auth_token_cipher, model_alias = EXCLUDED.model_alias,
          network_scope = EXCLUDED.network_scope, probe_path = EXCLUDED.probe_path, status = EXCLUDED.status,
          lease_expires_at = EXCLUDED.lease_expires_at, agent_id = EXCLUDED.agent_id, updated_at = EXCLUDED.updated_at
        RETURNING e.provider_key, e.created_at
      ),
      agent AS (
        UPDATE market_machine_agent SET status = 'active', last_seen_at = $2::timestamptz, updated_at = $2::timestamptz
        WHERE id IN (SELECT id FROM ok) RETURNING id
      ),
      audit AS (
        INSERT INTO market_audit_event (kind, machine_id, actor_type, actor_id, occurred_at, data)
        SELECT 'machine-agent.heartbeat', ok."machineId", ${actor}::text, ok.id, $2::timestamptz,
          jsonb_build_object('agentId', ok.id, 'providerKeys', ${keysJson}::jsonb, 'leaseExpiresAt', $3::text)
        FROM ok RETURNING id
      )
      SELECT locked.*, (SELECT coalesce(json_agg(json_build_object('providerKey', provider_key, 'createdAt', created_at)), '[]'::json)
        FROM upserted) AS written
      FROM locked`;
  texts.set(count, text);
  return text;
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
    /** Global rule 1's chain verdict, taken before the statement for `facts` (false: nothing is written). */
    identityHolds: boolean,
    /** The identity facts the verdict is for: a record with other facts is not written (its facts are answered). */
    facts: IdentityFacts | null,
  ): Promise<HeartbeatWrite> {
    const keys = reports.map((report) => report.providerKey);
    const actor: AuditActor["type"] = "machine-agent";
    const params: unknown[] = [Buffer.from(tokenHash.buffer, tokenHash.byteOffset, tokenHash.byteLength), now.toISOString(), leaseExpiresAt.toISOString()];
    for (const { providerKey, values: v } of reports) {
      params.push(providerKey, v.source, v.endpointBaseUrl, v.label, v.authType, v.authTokenCipher && Buffer.from(v.authTokenCipher),
        v.modelAlias, v.networkScope, v.probePath, v.status);
    }
    params.push(keys, identityHolds, actor, JSON.stringify(keys), facts?.onChainMachineId ?? null, facts?.signerAddress ?? null);
    const [row] = await sql<Row>(heartbeatText(reports.length), params);
    if (!row) return { agent: null, written: [] };
    // Named member by member: an object rest (`...agent`) copies through a slow generic path in V8.
    const agent: HeartbeatAgent = {
      id: row.id,
      machineId: row.machineId,
      label: row.label,
      status: row.status,
      allowedProviderKeys: row.allowedProviderKeys,
      revokedAt: row.revokedAt,
      createdAt: row.createdAt,
      machineStatus: row.machineStatus,
      machineVerified: row.machineVerified,
      onChainMachineId: row.onChainMachineId,
      signerAddress: row.signerAddress,
    };
    return { agent, written: row.written.map((w) => ({ providerKey: w.providerKey, createdAt: new Date(w.createdAt) })) };
  }
}
