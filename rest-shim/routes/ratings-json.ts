/**
 * Document 2's JSON bodies from the ratings subgraph's GraphQL answers: documented snake_case names in the documented
 * order, enum values as the notes spell them, integers GraphQL carries as strings written as numbers, and the one
 * float as Python writes it. `v2` bodies carry machine IDs as decimal strings (uint256 IDs; public notes §13).
 */
import { jsonText, pythonFloat, rawInteger, type JsonTextValue } from "../json-text.js";

type Data = Record<string, any>;
export type Deployment = "v1" | "v2";

const rating = (value: string) => (value === "PROVISIONED" ? "Provisioned" : value);
const machineIdOf = (machineId: string, deployment: Deployment) => (deployment === "v2" ? machineId : rawInteger(machineId));

export const body = (value: JsonTextValue) => Buffer.from(jsonText(value), "utf8");

export const SCORECARD_FIELDS =
  "did machineId mcrScore mcr mcrDegraded bondStatus negativeFlag eventCount revenueEventCount activityEventCount revenueTrend totalRevenue averageRevenuePerEvent lastUpdated";

export function scorecardJson(s: Data, deployment: Deployment): Record<string, JsonTextValue> {
  return {
    did: s.did,
    machine_id: machineIdOf(s.machineId, deployment),
    mcr_score: s.mcrScore,
    mcr: rating(s.mcr),
    mcr_degraded: s.mcrDegraded,
    bond_status: s.bondStatus,
    negative_flag: s.negativeFlag,
    event_count: s.eventCount,
    revenue_event_count: s.revenueEventCount,
    activity_event_count: s.activityEventCount,
    revenue_trend: s.revenueTrend,
    total_revenue: rawInteger(s.totalRevenue),
    average_revenue_per_event: pythonFloat(s.averageRevenuePerEvent),
    last_updated: s.lastUpdated === null ? null : rawInteger(String(s.lastUpdated)),
  };
}

export const PROFILE_FIELDS = `schemaVersion name details {
  machineId did operator mcr mcrScore bondStatus negativeFlag eventCount dataVisibility documentationUrl dataApi
  eventData { eventType value currency timestamp dataHash trustLevel sourceChainId sourceTxHash metadata usdValue amountStatus }
  partnerData partnerDataError
}`;

export function profileJson(p: Data, deployment: Deployment): JsonTextValue {
  const d = p.details;
  const visibility = d.dataVisibility;
  const extras: Record<string, JsonTextValue> = {};
  if (visibility === "private" && d.dataApi !== null) extras.data_api = d.dataApi;
  if (visibility === "onchain") extras.event_data = (d.eventData ?? []).map(eventJson);
  if (visibility === "public") {
    extras.data_api = d.dataApi;
    extras.partner_data = d.partnerData;
    extras.partner_data_error = d.partnerDataError;
  }
  return {
    schema_version: p.schemaVersion,
    name: p.name,
    peaqos: {
      machine_id: machineIdOf(d.machineId, deployment),
      did: d.did,
      operator: d.operator,
      mcr: rating(d.mcr),
      mcr_score: d.mcrScore,
      bond_status: d.bondStatus,
      negative_flag: d.negativeFlag,
      event_count: d.eventCount,
      data_visibility: visibility,
      documentation_url: d.documentationUrl,
      ...extras,
    },
  };
}

function eventJson(e: Data): JsonTextValue {
  const revenue = e.eventType === "REVENUE";
  return {
    event_type: revenue ? 0 : 1,
    value: rawInteger(e.value),
    currency: e.currency,
    timestamp: rawInteger(String(e.timestamp)),
    data_hash: e.dataHash,
    trust_level: e.trustLevel,
    source_chain_id: rawInteger(e.sourceChainId),
    source_tx_hash: e.sourceTxHash,
    metadata: e.metadata,
    usd_value: revenue ? (e.usdValue === null ? null : rawInteger(e.usdValue)) : undefined,
    amount_status: revenue ? e.amountStatus : undefined,
  };
}

export const OPERATOR_FIELDS = "operatorDid machines { did machineId mcrScore mcr negativeFlag } pagination { offset limit total }";

export function operatorJson(o: Data, deployment: Deployment): Record<string, JsonTextValue> {
  return {
    operator_did: o.operatorDid,
    machines: o.machines.map((m: Data) => ({
      did: m.did,
      machine_id: machineIdOf(m.machineId, deployment),
      mcr_score: m.mcrScore,
      mcr: rating(m.mcr),
      negative_flag: m.negativeFlag,
    })),
    pagination: { offset: o.pagination.offset, limit: o.pagination.limit, total: o.pagination.total },
  };
}

export const CARD_FIELDS = `type name description did active services { name endpoint } dataVisibility documentationUrl operator
  bondStatus eventCount registrations { type machineId machineRegistry }`;

export function cardJson(c: Data, deployment: Deployment): JsonTextValue {
  return {
    type: c.type,
    name: c.name,
    description: c.description,
    did: c.did,
    active: c.active,
    services: c.services.map((s: Data) => ({ name: s.name, endpoint: s.endpoint })),
    data_visibility: c.dataVisibility,
    documentation_url: c.documentationUrl,
    operator: c.operator,
    bond_status: c.bondStatus,
    event_count: c.eventCount,
    registrations: c.registrations.map((r: Data) => ({
      type: r.type,
      machineId: machineIdOf(r.machineId, deployment),
      machineRegistry: r.machineRegistry,
    })),
  };
}

export const READINESS_FIELDS =
  "status rpcConnected contracts { identityRegistry identityStaking eventRegistry machineNft didRegistry adminFlags }";

export function readinessJson(r: Data): JsonTextValue {
  const c = r.contracts;
  return {
    status: String(r.status).toLowerCase(),
    rpc_connected: r.rpcConnected,
    contracts: {
      identity_registry: c.identityRegistry,
      identity_staking: c.identityStaking,
      event_registry: c.eventRegistry,
      machine_nft: c.machineNft,
      did_registry: c.didRegistry,
      admin_flags: c.adminFlags,
    },
  };
}
