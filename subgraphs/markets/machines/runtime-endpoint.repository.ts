/** Runtime endpoints (model MarketRuntimeEndpoint): one per machine and provider key. */
import type { MarketRuntimeEndpoint as RuntimeEndpointRow } from "../../shared/db/generated/client.js";
import type { MarketsTx } from "../common/audit.repository.js";
import { statementOf, type MarketsSql } from "../common/sql.js";

export type { RuntimeEndpointRow };

/** Everything an upsert sets (machineId and providerKey name the row). */
export interface EndpointValues {
  source: "manual" | "agent";
  endpointBaseUrl: string;
  label: string;
  authType: string;
  authTokenCipher: Uint8Array<ArrayBuffer> | null;
  modelAlias: string | null;
  networkScope: string | null;
  probePath: string;
  status: string;
  leaseExpiresAt: Date | null;
  agentId: string | null;
}

/** One endpoint under its Prisma field names. */
const ENDPOINT_BY_KEY = `SELECT machine_id AS "machineId", provider_key AS "providerKey", source, endpoint_base_url AS "endpointBaseUrl",
  label, auth_type AS "authType", auth_token_cipher AS "authTokenCipher", model_alias AS "modelAlias",
  network_scope AS "networkScope", probe_path AS "probePath", status, lease_expires_at AS "leaseExpiresAt",
  agent_id AS "agentId", created_at AS "createdAt", updated_at AS "updatedAt"
  FROM market_runtime_endpoint WHERE machine_id = $1 AND provider_key = $2`;

export class RuntimeEndpointRepository {
  /** The endpoint, read in `tx`: either kind of transaction (common/sql.ts), or a client for a plain read. */
  async find(tx: MarketsSql, machineId: string, providerKey: string): Promise<RuntimeEndpointRow | null> {
    const [row] = await statementOf(tx)<RuntimeEndpointRow>(ENDPOINT_BY_KEY, [machineId, providerKey]);
    return row ?? null;
  }

  /** A page ordered by provider key, after `afterKey`; `limit + 1` rows (pagination.ts). */
  list(tx: MarketsTx, machineId: string, afterKey: string | null, take: number): Promise<RuntimeEndpointRow[]> {
    return tx.marketRuntimeEndpoint.findMany({
      where: afterKey === null ? { machineId } : { machineId, providerKey: { gt: afterKey } },
      orderBy: { providerKey: "asc" },
      take,
    });
  }

  /** Insert or replace in one statement; `created` is true when the row did not exist (xmax = 0 on insert). */
  async upsert(tx: MarketsTx, machineId: string, providerKey: string, values: EndpointValues, now: Date): Promise<{ row: RuntimeEndpointRow; created: boolean }> {
    const [result] = await tx.$queryRaw<Array<{ created: boolean; created_at: Date }>>`
      INSERT INTO market_runtime_endpoint AS e (machine_id, provider_key, source, endpoint_base_url, label, auth_type,
        auth_token_cipher, model_alias, network_scope, probe_path, status, lease_expires_at, agent_id, created_at, updated_at)
      VALUES (${machineId}, ${providerKey}, ${values.source}, ${values.endpointBaseUrl}, ${values.label}, ${values.authType},
        ${values.authTokenCipher}, ${values.modelAlias}, ${values.networkScope}, ${values.probePath}, ${values.status},
        ${values.leaseExpiresAt}, ${values.agentId}, ${now}, ${now})
      ON CONFLICT (machine_id, provider_key) DO UPDATE SET source = EXCLUDED.source,
        endpoint_base_url = EXCLUDED.endpoint_base_url, label = EXCLUDED.label, auth_type = EXCLUDED.auth_type,
        auth_token_cipher = EXCLUDED.auth_token_cipher, model_alias = EXCLUDED.model_alias,
        network_scope = EXCLUDED.network_scope, probe_path = EXCLUDED.probe_path, status = EXCLUDED.status,
        lease_expires_at = EXCLUDED.lease_expires_at, agent_id = EXCLUDED.agent_id, updated_at = EXCLUDED.updated_at
      RETURNING (xmax = 0) AS created, e.created_at`;
    const row: RuntimeEndpointRow = { machineId, providerKey, ...values, createdAt: new Date(result!.created_at), updatedAt: now };
    return { row, created: result!.created };
  }

  async delete(tx: MarketsTx, machineId: string, providerKey: string): Promise<boolean> {
    const { count } = await tx.marketRuntimeEndpoint.deleteMany({ where: { machineId, providerKey } });
    return count === 1;
  }
}
