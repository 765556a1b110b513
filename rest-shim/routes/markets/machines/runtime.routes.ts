/**
 * Document 3: runtime endpoints and machine-side agents (public notes 2.4). Entries built with `marketsRoute` from
 * rest-shim/routes/markets/http.ts. The heartbeat's credential is read here from the body's `agentToken`, the `x-agent-pairing-token`
 * header or `Authorization: Bearer`, in that order.
 */
import type { IncomingHttpHeaders } from "node:http";
import { RouteInputError } from "../../../json-body.js";
import type { RouteDefinition } from "../../../route-definition.js";
import { bodyObject, enumIn, itemOf, marketsRoute, noContent, op, pageOf, pageQuery, pick, upsertedItemOf } from "../http.js";

const ENDPOINT_FIELDS = `machineId providerKey source endpointBaseUrl label authType hasAuthToken modelAlias networkScope probePath status
  leaseExpiresAt createdAt updatedAt`;
const AGENT_FIELDS = "id machineId label status allowedProviderKeys lastSeenAt revokedAt createdAt updatedAt";

export const RUNTIME_OPERATIONS = {
  runtimeEndpoints: op(
    "RuntimeEndpoints",
    `query RuntimeEndpoints($machineId: String!, $limit: Int, $cursor: String) {
  runtimeEndpoints(machineId: $machineId, limit: $limit, cursor: $cursor) { items { ${ENDPOINT_FIELDS} } nextCursor }
}`,
  ),
  runtimeEndpoint: op(
    "RuntimeEndpoint",
    `query RuntimeEndpoint($machineId: String!, $providerKey: String!) { runtimeEndpoint(machineId: $machineId, providerKey: $providerKey) { ${ENDPOINT_FIELDS} } }`,
  ),
  upsertRuntimeEndpoint: op(
    "UpsertRuntimeEndpoint",
    `mutation UpsertRuntimeEndpoint($machineSession: String, $machineId: String!, $providerKey: String!, $input: RuntimeEndpointInput!) {
  upsertRuntimeEndpoint(machineSession: $machineSession, machineId: $machineId, providerKey: $providerKey, input: $input) { created endpoint { ${ENDPOINT_FIELDS} } }
}`,
  ),
  deleteRuntimeEndpoint: op(
    "DeleteRuntimeEndpoint",
    `mutation DeleteRuntimeEndpoint($machineSession: String, $machineId: String!, $providerKey: String!) { deleteRuntimeEndpoint(machineSession: $machineSession, machineId: $machineId, providerKey: $providerKey) }`,
  ),
  enrollMachineAgent: op(
    "EnrollMachineAgent",
    `mutation EnrollMachineAgent($machineSession: String, $machineId: String!, $input: EnrollMachineAgentInput!) {
  enrollMachineAgent(machineSession: $machineSession, machineId: $machineId, input: $input) { agent { ${AGENT_FIELDS} } agentToken }
}`,
  ),
  machineAgents: op(
    "MachineAgents",
    `query MachineAgents($machineId: String!, $limit: Int, $cursor: String) {
  machineAgents(machineId: $machineId, limit: $limit, cursor: $cursor) { items { ${AGENT_FIELDS} } nextCursor }
}`,
  ),
  revokeMachineAgent: op(
    "RevokeMachineAgent",
    `mutation RevokeMachineAgent($machineSession: String, $machineId: String!, $agentId: String!) { revokeMachineAgent(machineSession: $machineSession, machineId: $machineId, agentId: $agentId) { ${AGENT_FIELDS} } }`,
  ),
  machineAgentHeartbeat: op(
    "MachineAgentHeartbeat",
    `mutation MachineAgentHeartbeat($agentToken: String, $input: HeartbeatInput!) {
  machineAgentHeartbeat(agentToken: $agentToken, input: $input) { agent { ${AGENT_FIELDS} } endpoints { ${ENDPOINT_FIELDS} } leaseExpiresAt }
}`,
  ),
} as const;

const AUTH_TYPES = ["none", "api-key", "bearer"] as const;
const NETWORK_SCOPES = ["loopback", "lan", "vpn", "public"] as const;
const ENDPOINT_STATUSES = ["active", "degraded", "unreachable"] as const;

const ENDPOINT_SHAPE = {
  endpointBaseUrl: "string",
  label: "string?",
  authType: "string?",
  authToken: "string?",
  modelAlias: "string?",
  networkScope: "string?",
  probePath: "string?",
  status: "string?",
} as const;
/** The two shapes an endpoint report is picked with, built once: a heartbeat entry names its provider key. */
const PUT_ENDPOINT_SHAPE = { ...ENDPOINT_SHAPE, leaseExpiresAt: "string?" } as const;
const HEARTBEAT_ENDPOINT_SHAPE = { providerKey: "string", ...ENDPOINT_SHAPE } as const;

/** An endpoint report (PUT body or one heartbeat entry), type-checked, enums in GraphQL spelling. */
function endpointInput(source: Record<string, unknown>, withProviderKey: boolean) {
  const input = pick(source, withProviderKey ? HEARTBEAT_ENDPOINT_SHAPE : PUT_ENDPOINT_SHAPE);
  if (input.authType !== undefined) input.authType = enumIn(input.authType, AUTH_TYPES);
  if (input.networkScope !== undefined) input.networkScope = enumIn(input.networkScope, NETWORK_SCOPES);
  if (input.status !== undefined) input.status = enumIn(input.status, ENDPOINT_STATUSES);
  return input;
}

/** The heartbeat credential: body `agentToken`, else `x-agent-pairing-token`, else `Authorization: Bearer`. */
function heartbeatToken(body: Record<string, unknown>, headers: Readonly<IncomingHttpHeaders>): string {
  if (body.agentToken !== undefined && body.agentToken !== null) {
    if (typeof body.agentToken !== "string") throw new RouteInputError("AGENT_AUTH_INVALID");
    return body.agentToken;
  }
  const header = headers["x-agent-pairing-token"];
  if (header !== undefined) return Array.isArray(header) ? "" : header;
  const authorization = headers.authorization;
  if (authorization !== undefined) return /^Bearer [^\s]+$/.exec(authorization) ? authorization.slice(7) : "";
  throw new RouteInputError("AGENT_AUTH_REQUIRED");
}

function heartbeatVariables(raw: Buffer, headers: Readonly<IncomingHttpHeaders>) {
  const body = bodyObject(raw);
  const agentToken = heartbeatToken(body, headers);
  const fields = pick(body, { leaseSeconds: "integer", endpoints: "object[]?", endpoint: "object?" });
  const reports = (fields.endpoints ?? (fields.endpoint === undefined ? undefined : [fields.endpoint])) as Record<string, unknown>[] | undefined;
  if (reports === undefined || (fields.endpoints !== undefined && fields.endpoint !== undefined)) throw new RouteInputError("VALIDATION_ERROR");
  return { agentToken, input: { leaseSeconds: fields.leaseSeconds, endpoints: reports.map((report) => endpointInput(report, true)) } };
}

const SAMPLE_ENDPOINT = { endpointBaseUrl: "http://127.0.0.1:9" };
const guarded = (sample: { body?: unknown; params?: Record<string, string> } = {}) => ({ kind: "guarded" as const, machineIn: "path" as const, sample });

export const RUNTIME_ROUTES: readonly RouteDefinition[] = [
  marketsRoute({ caller: { kind: "public", reason: "a read" },
    method: "GET",
    path: "/machines/:machineId/runtime-endpoints",
    machineRule: guarded(),
    operation: RUNTIME_OPERATIONS.runtimeEndpoints,
    variables: ({ params, query }) => ({ machineId: params.machineId!, ...pageQuery(query) }),
    respond: pageOf("runtimeEndpoints"),
  }),
  marketsRoute({ caller: { kind: "public", reason: "a read" },
    method: "GET",
    path: "/machines/:machineId/runtime-endpoints/:providerKey",
    machineRule: guarded({ params: { providerKey: "sample" } }),
    operation: RUNTIME_OPERATIONS.runtimeEndpoint,
    variables: ({ params }) => ({ machineId: params.machineId!, providerKey: params.providerKey! }),
    respond: itemOf("runtimeEndpoint", 200),
  }),
  marketsRoute({ caller: { kind: "machine" },
    method: "PUT",
    path: "/machines/:machineId/runtime-endpoints/:providerKey",
    body: true,
    machineRule: guarded({ params: { providerKey: "sample" }, body: SAMPLE_ENDPOINT }),
    operation: RUNTIME_OPERATIONS.upsertRuntimeEndpoint,
    variables: ({ params, body }) => ({ machineId: params.machineId!, providerKey: params.providerKey!, input: endpointInput(bodyObject(body), false) }),
    respond: upsertedItemOf("upsertRuntimeEndpoint", "endpoint"),
  }),
  marketsRoute({ caller: { kind: "machine" },
    method: "DELETE",
    path: "/machines/:machineId/runtime-endpoints/:providerKey",
    machineRule: guarded({ params: { providerKey: "sample" } }),
    operation: RUNTIME_OPERATIONS.deleteRuntimeEndpoint,
    variables: ({ params }) => ({ machineId: params.machineId!, providerKey: params.providerKey! }),
    respond: noContent,
  }),
  marketsRoute({ caller: { kind: "machine" },
    method: "POST",
    path: "/machines/:machineId/agents/enrollment",
    body: true,
    machineRule: guarded({ body: { allowedProviderKeys: ["sample"] } }),
    operation: RUNTIME_OPERATIONS.enrollMachineAgent,
    variables: ({ params, body }) => ({ machineId: params.machineId!, input: pick(bodyObject(body), { label: "string?", allowedProviderKeys: "string[]" }) }),
    respond: itemOf("enrollMachineAgent", 201, (enrollment) => ({ agent: enrollment.agent, agentToken: enrollment.agentToken })),
  }),
  marketsRoute({ caller: { kind: "public", reason: "a read" },
    method: "GET",
    path: "/machines/:machineId/agents",
    machineRule: guarded(),
    operation: RUNTIME_OPERATIONS.machineAgents,
    variables: ({ params, query }) => ({ machineId: params.machineId!, ...pageQuery(query) }),
    respond: pageOf("machineAgents"),
  }),
  marketsRoute({ caller: { kind: "machine" },
    method: "POST",
    path: "/machines/:machineId/agents/:agentId/revoke",
    machineRule: guarded({ params: { agentId: "magt_000000000000000000000000" } }),
    operation: RUNTIME_OPERATIONS.revokeMachineAgent,
    variables: ({ params }) => ({ machineId: params.machineId!, agentId: params.agentId! }),
    respond: itemOf("revokeMachineAgent", 200),
  }),
  marketsRoute({ caller: { kind: "machine-agent" },
    method: "POST",
    path: "/machine-agents/heartbeat",
    body: true,
    // The machine comes from the agent's credential, not the request; the service still applies rule 1 to it.
    machineRule: { kind: "none" },
    operation: RUNTIME_OPERATIONS.machineAgentHeartbeat,
    variables: ({ body, headers }) => heartbeatVariables(body, headers),
    respond: itemOf("machineAgentHeartbeat", 200, (result) => ({
      agent: result.agent,
      endpoints: result.endpoints,
      leaseExpiresAt: result.leaseExpiresAt,
    })),
  }),
];
