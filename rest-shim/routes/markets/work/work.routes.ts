/**
 * Document 3: graph, service catalogue and search, tasks, routes, outcomes, runs, policies and audit events
 * (entries built with `marketsRoute` from rest-shim/routes/markets/http.ts; operations in rest-shim/routes/markets/work/work.operations.ts).
 */
import type { RouteDefinition, RouteOutcome } from "../../../route-definition.js";
import { fieldOf } from "../../../route-definition.js";
import { bodyObject, itemOf, marketsRoute, noContent, pageOf, pageQuery, pick, queryParam } from "../http.js";
import { pairingHeaderOf } from "../credentials.js";

import { WORK_OPERATIONS as OPS } from "./work.operations.js";
import { POLICY_AUDIT_ROUTES } from "./policy.routes.js";

export { WORK_OPERATIONS } from "./work.operations.js";

const NODE_SHAPE = { kind: "string?", label: "string?", status: "string?", data: "object?" } as const;
const EDGE_SHAPE = { fromNodeId: "string?", toNodeId: "string?", kind: "string?", label: "string?", data: "object?" } as const;
const TASK_SHAPE = { skillKey: "string?", operation: "string?", input: "object?" } as const;

/** Global rule 1 for a route naming the machine in its path; the sample fills the other path parameters and body. */
const inPath = (sample: { params?: Record<string, string>; body?: unknown } = {}) => ({ kind: "guarded", machineIn: "path", sample }) as const;
const NODE = { nodeId: "node_sample" };
const EDGE = { edgeId: "edge_sample" };
const TASK = { taskId: "task_sample" };

const json = (value: unknown) => Buffer.from(JSON.stringify(value), "utf8");

/** `{"items": [...]}` for the whole (small, curated) skill list. */
const itemsOf =
  (field: string) =>
  (data: Record<string, unknown>): RouteOutcome => ({ status: 200, body: json({ items: fieldOf(data, field) }) });

/** Execute: the provider's status (202 for a handoff) with `{"item": {task, run, outcome, handoff}}`. */
const executionOf = (data: Record<string, unknown>): RouteOutcome => {
  const { httpStatus, ...item } = fieldOf(data, "executeTask");
  return { status: httpStatus, body: json({ item }) };
};

function filters(query: URLSearchParams, names: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of names) {
    const value = queryParam(query, name);
    if (value !== null) out[name] = value;
  }
  return out;
}

const graphRoutes: RouteDefinition[] = [
  marketsRoute({ caller: { kind: "public", reason: "a read" },
    method: "GET",
    path: "/machines/:machineId/graph",
    operation: OPS.machineGraph,
    machineRule: inPath(),
    variables: ({ params }) => ({ machineId: params.machineId }),
    respond: itemOf("machineGraph"),
  }),
  marketsRoute({ caller: { kind: "machine" },
    method: "POST",
    path: "/machines/:machineId/graph/nodes",
    body: true,
    operation: OPS.createGraphNode,
    machineRule: inPath({ body: { label: "Drive unit" } }),
    variables: ({ params, body }) => ({ machineId: params.machineId, input: pick(bodyObject(body), NODE_SHAPE) }),
    respond: itemOf("createGraphNode", 201),
  }),
  marketsRoute({ caller: { kind: "machine" },
    method: "PATCH",
    path: "/machines/:machineId/graph/nodes/:nodeId",
    body: true,
    operation: OPS.updateGraphNode,
    machineRule: inPath({ params: NODE, body: { status: "active" } }),
    variables: ({ params, body }) => ({ machineId: params.machineId, nodeId: params.nodeId, input: pick(bodyObject(body), NODE_SHAPE) }),
    respond: itemOf("updateGraphNode"),
  }),
  marketsRoute({ caller: { kind: "machine" },
    method: "DELETE",
    path: "/machines/:machineId/graph/nodes/:nodeId",
    operation: OPS.deleteGraphNode,
    machineRule: inPath({ params: NODE }),
    variables: ({ params }) => ({ machineId: params.machineId, nodeId: params.nodeId }),
    respond: noContent,
  }),
  marketsRoute({ caller: { kind: "machine" },
    method: "POST",
    path: "/machines/:machineId/graph/edges",
    body: true,
    operation: OPS.createGraphEdge,
    machineRule: inPath({ body: { fromNodeId: "node_a", toNodeId: "node_b" } }),
    variables: ({ params, body }) => ({ machineId: params.machineId, input: pick(bodyObject(body), EDGE_SHAPE) }),
    respond: itemOf("createGraphEdge", 201),
  }),
  marketsRoute({ caller: { kind: "machine" },
    method: "PATCH",
    path: "/machines/:machineId/graph/edges/:edgeId",
    body: true,
    operation: OPS.updateGraphEdge,
    machineRule: inPath({ params: EDGE, body: { label: "power" } }),
    variables: ({ params, body }) => ({ machineId: params.machineId, edgeId: params.edgeId, input: pick(bodyObject(body), EDGE_SHAPE) }),
    respond: itemOf("updateGraphEdge"),
  }),
  marketsRoute({ caller: { kind: "machine" },
    method: "DELETE",
    path: "/machines/:machineId/graph/edges/:edgeId",
    operation: OPS.deleteGraphEdge,
    machineRule: inPath({ params: EDGE }),
    variables: ({ params }) => ({ machineId: params.machineId, edgeId: params.edgeId }),
    respond: noContent,
  }),
];

const catalogueRoutes: RouteDefinition[] = [
  marketsRoute({ caller: { kind: "public", reason: "a read" },
    method: "GET",
    path: "/market/skills",
    operation: OPS.marketSkills,
    machineRule: { kind: "none" },
    variables: () => ({}),
    respond: itemsOf("marketSkills"),
  }),
  marketsRoute({ caller: { kind: "public", reason: "a read" },
    method: "GET",
    path: "/market/services",
    operation: OPS.marketServices,
    machineRule: { kind: "none" },
    variables: ({ query }) => ({ ...pageQuery(query), ...filters(query, ["skillKey", "serviceType", "executionMode", "providerKey", "from", "to"]) }),
    respond: pageOf("marketServices"),
  }),
  marketsRoute({ caller: { kind: "public", reason: "a read" },
    method: "GET",
    path: "/market/services/:serviceId",
    operation: OPS.marketService,
    machineRule: { kind: "none" },
    variables: ({ params }) => ({ serviceId: params.serviceId }),
    respond: itemOf("marketService"),
  }),
  marketsRoute({ caller: { kind: "machine-or-pairing" },
    method: "POST",
    path: "/market/search",
    body: true,
    operation: OPS.searchMarket,
    machineRule: { kind: "guarded", machineIn: "body", sample: { body: { machineId: "{machineId}", skillKey: "oracle.price-feed" } } },
    variables: ({ body, headers }) => {
      const source = bodyObject(body);
      const input = pick(source, {
        machineId: "string",
        skillKey: "string?",
        serviceType: "string?",
        operation: "string?",
        capabilities: "string[]?",
        region: "string?",
        maxResults: "integer?",
        nativeOnly: "boolean?",
        allowHandoff: "boolean?",
        budget: "object?",
      });
      if (input.budget) input.budget = pick(input.budget as Record<string, unknown>, { amount: "string?", currency: "string?" });
      return { input, pairingToken: pairingHeaderOf(headers) };
    },
    respond: itemOf("searchMarket"),
  }),
];

const task = (path: string) => `/machines/:machineId/tasks/:taskId${path}`;

const taskRoutes: RouteDefinition[] = [
  marketsRoute({ caller: { kind: "public", reason: "a read" },
    method: "GET",
    path: "/machines/:machineId/tasks",
    operation: OPS.machineTasks,
    machineRule: inPath(),
    variables: ({ params, query }) => ({ machineId: params.machineId, ...pageQuery(query), ...filters(query, ["status"]) }),
    respond: pageOf("machineTasks"),
  }),
  marketsRoute({ caller: { kind: "machine" },
    method: "POST",
    path: "/machines/:machineId/tasks",
    body: true,
    operation: OPS.createTask,
    machineRule: inPath({ body: { skillKey: "oracle.price-feed" } }),
    variables: ({ params, body }) => ({ machineId: params.machineId, input: pick(bodyObject(body), TASK_SHAPE) }),
    respond: itemOf("createTask", 201),
  }),
  marketsRoute({ caller: { kind: "public", reason: "a read" },
    method: "GET",
    path: task(""),
    operation: OPS.machineTask,
    machineRule: inPath({ params: TASK }),
    variables: ({ params }) => ({ machineId: params.machineId, taskId: params.taskId }),
    respond: itemOf("machineTask", 200),
  }),
  marketsRoute({ caller: { kind: "machine" },
    method: "POST",
    path: task("/discover"),
    operation: OPS.discoverTask,
    machineRule: inPath({ params: TASK }),
    // No body is read; whatever is sent is ignored.
    variables: ({ params }) => ({ machineId: params.machineId, taskId: params.taskId }),
    respond: itemOf("discoverTask", 200),
  }),
  marketsRoute({ caller: { kind: "machine" },
    method: "POST",
    path: task("/resolve"),
    body: true,
    operation: OPS.resolveTask,
    machineRule: inPath({ params: TASK, body: {} }),
    variables: ({ params, body }) => ({ machineId: params.machineId, taskId: params.taskId, ...pick(bodyObject(body, true), { serviceId: "string?" }) }),
    respond: itemOf("resolveTask", 201),
  }),
  marketsRoute({ caller: { kind: "machine" },
    method: "POST",
    path: task("/execute"),
    operation: OPS.executeTask,
    machineRule: inPath({ params: TASK }),
    // No body is read; whatever is sent is ignored.
    variables: ({ params }) => ({ machineId: params.machineId, taskId: params.taskId }),
    respond: executionOf,
  }),
  marketsRoute({ caller: { kind: "public", reason: "a read" },
    method: "GET",
    path: "/machines/:machineId/routes",
    operation: OPS.machineRoutes,
    machineRule: inPath(),
    variables: ({ params, query }) => ({ machineId: params.machineId, ...pageQuery(query) }),
    respond: pageOf("machineRoutes"),
  }),
  marketsRoute({ caller: { kind: "public", reason: "a read" },
    method: "GET",
    path: "/machines/:machineId/outcomes",
    operation: OPS.machineOutcomes,
    machineRule: inPath(),
    variables: ({ params, query }) => ({ machineId: params.machineId, ...pageQuery(query) }),
    respond: pageOf("machineOutcomes"),
  }),
  marketsRoute({ caller: { kind: "public", reason: "a read" },
    method: "GET",
    path: "/runs",
    operation: OPS.marketRuns,
    machineRule: { kind: "guarded", machineIn: "query", sample: { query: { machineId: "{machineId}" } } },
    variables: ({ query }) => ({ ...pageQuery(query), ...filters(query, ["machineId", "taskId", "status", "providerKey", "since", "until"]) }),
    respond: pageOf("marketRuns"),
  }),
  marketsRoute({ caller: { kind: "public", reason: "a read" },
    method: "GET",
    path: "/runs/:runId",
    operation: OPS.marketRun,
    machineRule: { kind: "none" },
    variables: ({ params }) => ({ runId: params.runId }),
    respond: itemOf("marketRun"),
  }),
];

export const WORK_ROUTES: readonly RouteDefinition[] = [...graphRoutes, ...catalogueRoutes, ...taskRoutes, ...POLICY_AUDIT_ROUTES];
