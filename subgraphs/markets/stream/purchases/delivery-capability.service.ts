/**
 * Delivery transports and a seller machine's delivery capabilities (public notes 3.4; docs/stream-marketplace.md
 * "Purchase flow"). A machine's agent announces with PUT /machines/:machineId/delivery-capabilities which p2p
 * transports its delivery server speaks and where it listens; purchases negotiate against the announcement while it
 * is live (expiresAt not passed).
 *
 * Each capability: `transportId` (`libp2p`: addresses are multiaddrs; `tcp`: `host:port`), `version`, `features[]`,
 * `protocols[]` (must contain PURCHASE_PROTOCOL), `encoding` (PURCHASE_ENCODING), `params.addresses[]` (1..8) and
 * `params.peerId?`. 1..8 capabilities, each transport once. `expiresAt` defaults to now + 1 h, at most now + 24 h.
 * Anything else: DELIVERY_CAPABILITIES_INVALID, nothing written.
 */
import type { Clock } from "../../../shared/clock.js";
import { recordAuditEvent, type MarketsTx } from "../../common/audit.repository.js";
import type { MarketsStore } from "../../common/store.js";
import { authenticateStreamAgent, type AgentCredentials } from "../seller/agent.auth.js";
import { PurchaseErrors } from "./purchase.errors.js";
import type { JsonObject } from "../../common/support.js";

export const PURCHASE_PROTOCOL = "/peaqos/stream/chunk/1.0.0";
export const PURCHASE_ENCODING = "peaqos-json-frame-v1";
export const RESOURCE_TYPES = ["stream.listing", "stream.bundle"] as const;
const DEFAULT_TTL_MS = 3_600_000;
const MAX_TTL_MS = 86_400_000;

/** GET /delivery-transports: what the platform can negotiate. */
export const DELIVERY_TRANSPORTS = [
  { mode: "p2p", transportId: "libp2p", protocols: [PURCHASE_PROTOCOL], encodings: [PURCHASE_ENCODING], addressFormat: "multiaddr", features: ["resume"] },
  { mode: "p2p", transportId: "tcp", protocols: [PURCHASE_PROTOCOL], encodings: [PURCHASE_ENCODING], addressFormat: "host:port", features: ["resume"] },
] as const;

export type TransportId = (typeof DELIVERY_TRANSPORTS)[number]["transportId"];
export const TRANSPORT_IDS: readonly string[] = DELIVERY_TRANSPORTS.map((t) => t.transportId);

export interface Capability {
  transportId: TransportId;
  version: string;
  features: string[];
  protocols: string[];
  encoding: string;
  params: { addresses: string[]; peerId: string | null };
}

const TOKEN = /^[A-Za-z0-9._\-/]{1,64}$/;
const HOST_PORT = /^(?:[A-Za-z0-9.-]{1,253}|\[[0-9A-Fa-f:.]{2,45}\]):(\d{1,5})$/;
const MULTIADDR = /^(\/[A-Za-z0-9._~:%+\-]+){2,16}$/;
const PEER_ID = /^[1-9A-HJ-NP-Za-km-z]{32,128}$/;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const strings = (v: unknown, max: number, each: RegExp, min = 0): v is string[] =>
  Array.isArray(v) && v.length >= min && v.length <= max && v.every((s) => typeof s === "string" && each.test(s));

function address(transportId: string, value: string): boolean {
  if (transportId === "tcp") {
    const match = HOST_PORT.exec(value);
    return match !== null && Number(match[1]) >= 1 && Number(match[1]) <= 65_535;
  }
  return value.length <= 512 && MULTIADDR.test(value);
}

/** One capability, checked and normalised (defaults filled); DELIVERY_CAPABILITIES_INVALID otherwise. */
export function parseCapability(value: unknown): Capability {
  const bad = PurchaseErrors.capabilitiesInvalid;
  if (!isObject(value)) throw bad();
  const { transportId, version, features = [], protocols = [PURCHASE_PROTOCOL], encoding = PURCHASE_ENCODING, params } = value;
  if (typeof transportId !== "string" || !TRANSPORT_IDS.includes(transportId)) throw bad();
  if (typeof version !== "string" || !TOKEN.test(version)) throw bad();
  if (!strings(features, 16, TOKEN)) throw bad();
  if (!strings(protocols, 8, /^\/[A-Za-z0-9._\-/]{1,127}$/, 1) || !protocols.includes(PURCHASE_PROTOCOL)) throw bad();
  if (encoding !== PURCHASE_ENCODING) throw bad();
  if (!isObject(params) || !strings(params.addresses, 8, /^.{1,512}$/, 1)) throw bad();
  if (!params.addresses.every((a) => address(transportId, a))) throw bad();
  const peerId = params.peerId ?? null;
  if (peerId !== null && (typeof peerId !== "string" || !PEER_ID.test(peerId))) throw bad();
  return { transportId: transportId as TransportId, version, features, protocols, encoding, params: { addresses: params.addresses, peerId } };
}

export interface CapabilityInput {
  capabilities?: unknown;
  resourceTypes?: unknown;
  expiresAt?: unknown;
}

export function capabilityView(row: { machineId: string; agentId: string; capabilities: unknown; resourceTypes: string[]; expiresAt: Date | null; updatedAt: Date }) {
  return {
    machineId: row.machineId,
    agentId: row.agentId,
    capabilities: row.capabilities as JsonObject[],
    resourceTypes: row.resourceTypes,
    expiresAt: row.expiresAt?.toISOString() ?? null,
    updatedAt: row.updatedAt.toISOString(),
  };
}

export class DeliveryCapabilityService {
  constructor(
    private readonly store: MarketsStore,
    private readonly clock: Clock,
  ) {}

  /** PUT /machines/:machineId/delivery-capabilities: replaces the announcement (created: no earlier one). */
  async put(machineId: string, credentials: AgentCredentials, input: CapabilityInput) {
    const now = new Date(this.clock.now());
    const bad = PurchaseErrors.capabilitiesInvalid;
    return this.store.write(async (tx) => {
      const { agent } = await authenticateStreamAgent(this.store, tx, machineId, credentials);
      if (!Array.isArray(input.capabilities) || input.capabilities.length < 1 || input.capabilities.length > 8) throw bad();
      const capabilities = input.capabilities.map(parseCapability);
      if (new Set(capabilities.map((c) => c.transportId)).size !== capabilities.length) throw bad();
      const resourceTypes = input.resourceTypes ?? ["stream.listing"];
      if (!strings(resourceTypes, 2, /^.+$/, 1) || !resourceTypes.every((t) => (RESOURCE_TYPES as readonly string[]).includes(t))) throw bad();
      let expiresAt = new Date(now.getTime() + DEFAULT_TTL_MS);
      if (input.expiresAt !== undefined && input.expiresAt !== null) {
        const ms = typeof input.expiresAt === "string" && /^\d{4}-\d\d-\d\dT/.test(input.expiresAt) ? Date.parse(input.expiresAt) : NaN;
        if (!Number.isFinite(ms) || ms <= now.getTime() || ms > now.getTime() + MAX_TTL_MS) throw bad();
        expiresAt = new Date(ms);
      }
      const before = await tx.streamDeliveryCapability.findUnique({ where: { machineId } });
      const data = { agentId: agent.id, capabilities: capabilities as never, resourceTypes: [...new Set(resourceTypes)], expiresAt, updatedAt: now };
      const row = await tx.streamDeliveryCapability.upsert({ where: { machineId }, create: { machineId, ...data }, update: data });
      await recordAuditEvent(tx, {
        kind: "stream.delivery-capabilities.updated",
        machineId,
        actor: { type: "machine-agent", id: agent.id },
        occurredAt: now,
        data: { transports: capabilities.map((c) => c.transportId), resourceTypes: row.resourceTypes, expiresAt: expiresAt.toISOString(), created: !before },
      });
      return { created: !before, item: capabilityView(row) };
    });
  }
}

/** The machine's capabilities while its announcement is live; none otherwise. */
export async function liveCapabilities(tx: MarketsTx, machineId: string, now: Date): Promise<Capability[]> {
  const row = await tx.streamDeliveryCapability.findUnique({ where: { machineId } });
  if (!row || (row.expiresAt !== null && row.expiresAt.getTime() <= now.getTime())) return [];
  return row.capabilities as unknown as Capability[];
}
