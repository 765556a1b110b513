/**
 * Runtime endpoints (document 3; public notes 2.4): where a machine's provider runtimes answer. Manual endpoints come
 * from PUT (source forced to `manual`); agent endpoints from heartbeats (machines/machine-agent.service.ts), with a lease.
 *
 * - The provider key is lowercased; the URL must be http(s) without credentials and keeps only scheme, host and
 *   port. Invalid input is VALIDATION_ERROR.
 * - `authToken` is sealed with MARKETS_SECRETS_KEY (AES-256-GCM, machine and provider as associated data): the task
 *   executor needs it back (`resolveForExecution`); views only say `hasAuthToken`.
 * - An agent endpoint whose lease lapsed is served as `unreachable` (live: false) and is never resolved for
 *   execution.
 */
import type { Clock } from "../../shared/clock.js";
import type { SecretBox } from "../../shared/crypto/secret-box.js";
import { recordAuditEvent, type AuditActor, type MarketsTx } from "../common/audit.repository.js";
import { MarketsErrors } from "../common/errors.js";
import { pageOf, pageRequest } from "../common/pagination.js";
import type { EndpointValues, RuntimeEndpointRepository, RuntimeEndpointRow } from "./runtime-endpoint.repository.js";
import {
  RuntimeAuthType,
  RuntimeEndpointSource,
  RuntimeEndpointStatus,
  type RuntimeEndpoint,
  type RuntimeEndpointInput,
  type RuntimeEndpointPage,
  type RuntimeEndpointUpsert,
  type RuntimeNetworkScope,
} from "./runtime-endpoint.type.js";
import type { MarketsStore } from "../common/store.js";
import type { MarketsSql } from "../common/sql.js";

const PLATFORM: AuditActor = { type: "platform" };
const PROVIDER_KEY = /^[a-z0-9][a-z0-9._-]{0,63}$/;
const MAX_URL_LENGTH = 2048;
const MAX_TOKEN_LENGTH = 4096;

/** What the task executor needs to call a provider on a machine. */
export interface ExecutionEndpoint {
  providerKey: string;
  /** Scheme, host and port, e.g. `http://10.0.0.5:8080`. */
  endpointBaseUrl: string;
  authType: "none" | "api-key" | "bearer";
  /** The decrypted token, or null when none is stored. Never log or persist it. */
  authToken: string | null;
  probePath: string;
  modelAlias: string | null;
  source: "manual" | "agent";
}

/** A lowercased, valid provider key, or VALIDATION_ERROR. */
export function providerKeyOf(raw: string): string {
  const key = raw.toLowerCase();
  if (!PROVIDER_KEY.test(key)) throw MarketsErrors.validation();
  return key;
}

/** `scheme://host[:port]` of an http(s) URL without credentials, or VALIDATION_ERROR. */
export function normaliseBaseUrl(raw: string): string {
  const known = origins.get(raw);
  if (known !== undefined) return known;
  if (raw.length === 0 || raw.length > MAX_URL_LENGTH) throw MarketsErrors.validation();
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw MarketsErrors.validation();
  }
  if ((url.protocol !== "http:" && url.protocol !== "https:") || url.username !== "" || url.password !== "" || url.hostname === "") {
    throw MarketsErrors.validation();
  }
  if (origins.size >= MAX_KNOWN_ORIGINS) origins.delete(origins.keys().next().value!);
  origins.set(raw, url.origin);
  return url.origin;
}

/**
 * The origin of each accepted URL text, as parsed (a pure function of the text): an agent reports the same URL with
 * every heartbeat, so it is parsed once. Bounded; the oldest entry goes first. Refused texts are not kept.
 */
const origins = new Map<string, string>();
const MAX_KNOWN_ORIGINS = 10_000;

const optionalText = (value: string | null | undefined, max: number): string | null => {
  if (value == null) return null;
  if (value.length === 0 || value.length > max) throw MarketsErrors.validation();
  return value;
};

export class RuntimeEndpointService {
  constructor(
    private readonly store: MarketsStore,
    private readonly endpoints: RuntimeEndpointRepository,
    /** Null when MARKETS_SECRETS_KEY is unset: storing a token is then SERVICE_UNAVAILABLE. */
    private readonly secrets: SecretBox | null,
    private readonly clock: Clock,
  ) {}

  /** The row values of an endpoint report, checked (shared by PUT and heartbeats). */
  values(machineId: string, providerKey: string, input: RuntimeEndpointInput, source: "manual" | "agent"): EndpointValues {
    const endpointBaseUrl = normaliseBaseUrl(input.endpointBaseUrl);
    const authToken = input.authToken ?? null;
    if (authToken !== null && (authToken.length === 0 || authToken.length > MAX_TOKEN_LENGTH)) throw MarketsErrors.validation();
    const authType = input.authType ?? (authToken === null ? RuntimeAuthType.NONE : RuntimeAuthType.BEARER);
    // A token without a way to send it, or a scheme without a token, cannot be executed against.
    if ((authType === RuntimeAuthType.NONE) !== (authToken === null)) throw MarketsErrors.validation();
    const probePath = optionalText(input.probePath, 200) ?? (providerKey === "qvac" ? "/v1/models" : "/health");
    if (!probePath.startsWith("/")) throw MarketsErrors.validation();
    let leaseExpiresAt: Date | null = null;
    if (input.leaseExpiresAt != null) {
      leaseExpiresAt = new Date(input.leaseExpiresAt);
      if (Number.isNaN(leaseExpiresAt.getTime()) || !/^\d{4}-\d{2}-\d{2}T/.test(input.leaseExpiresAt)) throw MarketsErrors.validation();
    }
    let authTokenCipher: Uint8Array<ArrayBuffer> | null = null;
    if (authToken !== null) {
      if (!this.secrets) throw MarketsErrors.storeUnavailable();
      authTokenCipher = new Uint8Array(this.secrets.seal(Buffer.from(authToken, "utf8"), `${machineId}/${providerKey}`));
    }
    return {
      source,
      endpointBaseUrl,
      label: optionalText(input.label, 200) ?? `${providerKey.toUpperCase()} runtime`,
      authType: authType.toLowerCase().replace(/_/g, "-"),
      authTokenCipher,
      modelAlias: optionalText(input.modelAlias, 200),
      networkScope: input.networkScope == null ? null : input.networkScope.toLowerCase(),
      probePath,
      status: (input.status ?? RuntimeEndpointStatus.ACTIVE).toLowerCase(),
      leaseExpiresAt,
      agentId: null,
    };
  }

  view(row: RuntimeEndpointRow, now = this.clock.now()): RuntimeEndpoint {
    const live = row.leaseExpiresAt === null || row.source !== "agent" || row.leaseExpiresAt.getTime() > now;
    return {
      machineId: row.machineId,
      providerKey: row.providerKey,
      source: row.source.toUpperCase() as RuntimeEndpointSource,
      endpointBaseUrl: row.endpointBaseUrl,
      label: row.label,
      authType: row.authType.toUpperCase().replace(/-/g, "_") as RuntimeAuthType,
      hasAuthToken: row.authTokenCipher !== null,
      modelAlias: row.modelAlias,
      networkScope: row.networkScope === null ? null : (row.networkScope.toUpperCase() as RuntimeNetworkScope),
      probePath: row.probePath,
      status: live ? (row.status.toUpperCase() as RuntimeEndpointStatus) : RuntimeEndpointStatus.UNREACHABLE,
      leaseExpiresAt: row.leaseExpiresAt?.toISOString() ?? null,
      live,
      createdAt: row.createdAt.toISOString(),
      updatedAt: row.updatedAt.toISOString(),
    };
  }

  /** `guard: false` only for the machine record's own nested fields (GraphQL), which show drafts too. */
  async list(machineId: string, limit: number | null | undefined, cursor: string | null | undefined, guard = true): Promise<RuntimeEndpointPage> {
    const page = pageRequest(limit, cursor, 1);
    const rows = await this.store.read(async (prisma) => {
      if (guard) await this.store.requireActiveMachine(prisma, machineId);
      return this.endpoints.list(prisma, machineId, page.after?.[0] ?? null, page.limit + 1);
    });
    const { items, nextCursor } = pageOf(rows, page.limit, (row) => [row.providerKey]);
    return { items: items.map((row) => this.view(row)), nextCursor };
  }

  async read(machineId: string, rawProviderKey: string): Promise<RuntimeEndpoint> {
    const row = await this.store.read(async (prisma) => {
      await this.store.requireActiveMachine(prisma, machineId);
      return this.endpoints.find(prisma, machineId, providerKeyOf(rawProviderKey));
    });
    if (!row) throw MarketsErrors.notFound();
    return this.view(row);
  }

  /** PUT: source forced to `manual`. */
  async upsert(machineId: string, rawProviderKey: string, input: RuntimeEndpointInput, actor: AuditActor = PLATFORM): Promise<RuntimeEndpointUpsert> {
    const now = new Date(this.clock.now());
    const result = await this.store.write(async (tx) => {
      await this.store.requireActiveMachine(tx, machineId);
      const providerKey = providerKeyOf(rawProviderKey);
      const outcome = await this.endpoints.upsert(tx, machineId, providerKey, this.values(machineId, providerKey, input, "manual"), now);
      await recordAuditEvent(tx, {
        kind: "runtime-endpoint.upserted",
        machineId,
        actor,
        occurredAt: now,
        data: { providerKey, source: "manual", created: outcome.created, endpointBaseUrl: outcome.row.endpointBaseUrl },
      });
      return outcome;
    });
    return { created: result.created, endpoint: this.view(result.row, now.getTime()) };
  }

  async delete(machineId: string, rawProviderKey: string, actor: AuditActor = PLATFORM): Promise<boolean> {
    const now = new Date(this.clock.now());
    return this.store.write(async (tx) => {
      await this.store.requireActiveMachine(tx, machineId);
      const providerKey = providerKeyOf(rawProviderKey);
      if (!(await this.endpoints.delete(tx, machineId, providerKey))) throw MarketsErrors.notFound();
      await recordAuditEvent(tx, { kind: "runtime-endpoint.deleted", machineId, actor, occurredAt: now, data: { providerKey } });
      return true;
    });
  }

  /**
   * For the task executor: the live endpoint of `providerKey` on the machine with its decrypted credentials, read in
   * the caller's transaction. NOT_FOUND when there is none, or its agent lease lapsed (not served as live).
   */
  async resolveForExecution(tx: MarketsSql, machineId: string, rawProviderKey: string): Promise<ExecutionEndpoint> {
    const providerKey = providerKeyOf(rawProviderKey);
    const row = await this.endpoints.find(tx, machineId, providerKey);
    if (!row || !this.view(row).live) throw MarketsErrors.notFound();
    let authToken: string | null = null;
    if (row.authTokenCipher !== null) {
      if (!this.secrets) throw MarketsErrors.storeUnavailable();
      authToken = Buffer.from(this.secrets.open(row.authTokenCipher, `${machineId}/${providerKey}`)).toString("utf8");
    }
    return {
      providerKey,
      endpointBaseUrl: row.endpointBaseUrl,
      authType: row.authType as ExecutionEndpoint["authType"],
      authToken,
      probePath: row.probePath,
      modelAlias: row.modelAlias,
      source: row.source as ExecutionEndpoint["source"],
    };
  }
}
