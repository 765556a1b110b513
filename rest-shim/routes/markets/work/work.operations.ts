/** The named GraphQL operations behind the graph, catalogue, task, policy and audit routes (rest-shim/routes/markets/work/work.routes.ts). */
import { op } from "../http.js";

const NODE = "id machineId kind label status data createdAt updatedAt";
const EDGE = "id machineId fromNodeId toNodeId kind label data createdAt updatedAt";
const PRICING = "pricing { mode amount currency rate notes } payment { defaultRail required supportedRails }";
const SERVICE = `id skillKey providerKey companyName serviceType name description operations executionMode integrationStatus region
  capabilities handoff { label url notes } metadata providerId providerLabel authType accessMode distribution maturity kind
  freshnessSeconds requiresHumanEnablement referenceUrl artifactUrl ${PRICING}`;
const ROUTE = "id machineId taskId serviceId skillKey providerKey executionMode operation score createdAt";
const TASK = `id machineId skillKey operation input status executingDeadline candidates { serviceId providerKey executionMode operation score reasons }
  routeId route { ${ROUTE} } createdAt updatedAt`;
const RUN = "id machineId taskId routeId providerKey executionMode status httpStatus errorReason startedAt finishedAt";
const OUTCOME = "id machineId taskId runId kind result createdAt";
const POLICY = "id name description kind status machineIds rules createdAt updatedAt";
const PAGE = "$limit: Int, $cursor: String";
const PAGE_ARGS = "limit: $limit, cursor: $cursor";

export const WORK_OPERATIONS = {
  machineGraph: op("MachineGraph", `query MachineGraph($machineId: String!) { machineGraph(machineId: $machineId) { machineId nodes { ${NODE} } edges { ${EDGE} } } }`),
  createGraphNode: op(
    "CreateGraphNode",
    `mutation CreateGraphNode($machineSession: String, $machineId: String!, $input: GraphNodeInput!) { createGraphNode(machineSession: $machineSession, machineId: $machineId, input: $input) { ${NODE} } }`,
  ),
  updateGraphNode: op(
    "UpdateGraphNode",
    `mutation UpdateGraphNode($machineSession: String, $machineId: String!, $nodeId: String!, $input: GraphNodeInput!) {
  updateGraphNode(machineSession: $machineSession, machineId: $machineId, nodeId: $nodeId, input: $input) { ${NODE} }
}`,
  ),
  deleteGraphNode: op("DeleteGraphNode", `mutation DeleteGraphNode($machineSession: String, $machineId: String!, $nodeId: String!) { deleteGraphNode(machineSession: $machineSession, machineId: $machineId, nodeId: $nodeId) }`),
  createGraphEdge: op(
    "CreateGraphEdge",
    `mutation CreateGraphEdge($machineSession: String, $machineId: String!, $input: GraphEdgeInput!) { createGraphEdge(machineSession: $machineSession, machineId: $machineId, input: $input) { ${EDGE} } }`,
  ),
  updateGraphEdge: op(
    "UpdateGraphEdge",
    `mutation UpdateGraphEdge($machineSession: String, $machineId: String!, $edgeId: String!, $input: GraphEdgeInput!) {
  updateGraphEdge(machineSession: $machineSession, machineId: $machineId, edgeId: $edgeId, input: $input) { ${EDGE} }
}`,
  ),
  deleteGraphEdge: op("DeleteGraphEdge", `mutation DeleteGraphEdge($machineSession: String, $machineId: String!, $edgeId: String!) { deleteGraphEdge(machineSession: $machineSession, machineId: $machineId, edgeId: $edgeId) }`),
  marketSkills: op(
    "MarketSkills",
    "query MarketSkills { marketSkills { key providerKey label description serviceTypes operations executionMode integrationStatus } }",
  ),
  marketServices: op(
    "MarketServices",
    `query MarketServices($skillKey: String, $serviceType: String, $executionMode: String, $providerKey: String, $from: String, $to: String, ${PAGE}) {
  marketServices(skillKey: $skillKey, serviceType: $serviceType, executionMode: $executionMode, providerKey: $providerKey, from: $from, to: $to, ${PAGE_ARGS}) {
    items { ${SERVICE} } nextCursor
  }
}`,
  ),
  marketService: op("MarketService", `query MarketService($serviceId: String!) { marketService(serviceId: $serviceId) { ${SERVICE} } }`),
  searchMarket: op(
    "SearchMarket",
    `mutation SearchMarket($machineSession: String, $pairingToken: String, $input: MarketSearchInput!) {
  searchMarket(machineSession: $machineSession, pairingToken: $pairingToken, input: $input) {
    searchId machineId createdAt expiresAt
    quotes { id searchId serviceId skillKey providerKey executionMode integrationStatus operation score reasons ${PRICING} expiresAt }
  }
}`,
  ),
  machineTasks: op(
    "MachineTasks",
    `query MachineTasks($machineId: String!, $status: String, ${PAGE}) {
  machineTasks(machineId: $machineId, status: $status, ${PAGE_ARGS}) { items { ${TASK} } nextCursor }
}`,
  ),
  machineTask: op("MachineTask", `query MachineTask($machineId: String!, $taskId: String!) { machineTask(machineId: $machineId, taskId: $taskId) { ${TASK} } }`),
  createTask: op(
    "CreateTask",
    `mutation CreateTask($machineSession: String, $machineId: String!, $input: MarketTaskInput!) { createTask(machineSession: $machineSession, machineId: $machineId, input: $input) { ${TASK} } }`,
  ),
  discoverTask: op(
    "DiscoverTask",
    `mutation DiscoverTask($machineSession: String, $machineId: String!, $taskId: String!) { discoverTask(machineSession: $machineSession, machineId: $machineId, taskId: $taskId) { ${TASK} } }`,
  ),
  resolveTask: op(
    "ResolveTask",
    `mutation ResolveTask($machineSession: String, $machineId: String!, $taskId: String!, $serviceId: String) {
  resolveTask(machineSession: $machineSession, machineId: $machineId, taskId: $taskId, serviceId: $serviceId) { ${TASK} }
}`,
  ),
  executeTask: op(
    "ExecuteTask",
    `mutation ExecuteTask($machineSession: String, $machineId: String!, $taskId: String!) {
  executeTask(machineSession: $machineSession, machineId: $machineId, taskId: $taskId) {
    httpStatus task { ${TASK} } run { ${RUN} } outcome { ${OUTCOME} } handoff { label url notes }
  }
}`,
  ),
  machineRoutes: op(
    "MachineRoutes",
    `query MachineRoutes($machineId: String!, ${PAGE}) { machineRoutes(machineId: $machineId, ${PAGE_ARGS}) { items { ${ROUTE} } nextCursor } }`,
  ),
  machineOutcomes: op(
    "MachineOutcomes",
    `query MachineOutcomes($machineId: String!, ${PAGE}) { machineOutcomes(machineId: $machineId, ${PAGE_ARGS}) { items { ${OUTCOME} } nextCursor } }`,
  ),
  marketRuns: op(
    "MarketRuns",
    `query MarketRuns($machineId: String, $taskId: String, $status: String, $providerKey: String, $since: String, $until: String, ${PAGE}) {
  marketRuns(machineId: $machineId, taskId: $taskId, status: $status, providerKey: $providerKey, since: $since, until: $until, ${PAGE_ARGS}) {
    items { ${RUN} } nextCursor
  }
}`,
  ),
  marketRun: op("MarketRun", `query MarketRun($runId: String!) { marketRun(runId: $runId) { ${RUN} } }`),
  marketPolicies: op(
    "MarketPolicies",
    `query MarketPolicies($status: String, $kind: String, ${PAGE}) { marketPolicies(status: $status, kind: $kind, ${PAGE_ARGS}) { items { ${POLICY} } nextCursor } }`,
  ),
  marketPolicy: op("MarketPolicy", `query MarketPolicy($policyId: String!) { marketPolicy(policyId: $policyId) { ${POLICY} } }`),
  createMarketPolicy: op(
    "CreateMarketPolicy",
    `mutation CreateMarketPolicy($input: MarketPolicyInput!) { createMarketPolicy(input: $input) { ${POLICY} } }`,
  ),
  updateMarketPolicy: op(
    "UpdateMarketPolicy",
    `mutation UpdateMarketPolicy($policyId: String!, $input: MarketPolicyInput!) { updateMarketPolicy(policyId: $policyId, input: $input) { ${POLICY} } }`,
  ),
  auditEvents: op(
    "AuditEvents",
    `query AuditEvents($machineId: String, $kind: String, $actorType: String, $actorId: String, $since: String, $until: String, ${PAGE}) {
  auditEvents(machineId: $machineId, kind: $kind, actorType: $actorType, actorId: $actorId, since: $since, until: $until, ${PAGE_ARGS}) {
    items { id kind machineId actor { type id } occurredAt data } nextCursor
  }
}`,
  ),
} as const;
