/** The JSON views of tasks, routes, runs and outcomes (the REST `item`s and the GraphQL objects). */
import type { MarketsOutcome, MarketsRoute, MarketsRun, MarketsTask } from "./task.repository.js";
import type { JsonObject } from "../common/support.js";

export interface Candidate {
  serviceId: string;
  providerKey: string;
  executionMode: string;
  operation: string;
  score: number;
  reasons: string[];
}

export const routeView = (r: MarketsRoute) => ({
  id: r.id,
  machineId: r.machineId,
  taskId: r.taskId,
  serviceId: r.serviceId,
  skillKey: r.skillKey,
  providerKey: r.providerKey,
  executionMode: r.executionMode,
  operation: r.operation,
  score: r.score,
  createdAt: r.createdAt.toISOString(),
});

export const taskView = (t: MarketsTask, route: MarketsRoute | null) => ({
  id: t.id,
  machineId: t.machineId,
  skillKey: t.skillKey,
  operation: t.operation,
  input: t.input as JsonObject,
  status: t.status,
  executingDeadline: t.status === "executing" && t.executingDeadline ? t.executingDeadline.toISOString() : null,
  candidates: t.candidates as unknown as Candidate[],
  routeId: t.routeId,
  route: route ? routeView(route) : null,
  createdAt: t.createdAt.toISOString(),
  updatedAt: t.updatedAt.toISOString(),
});

export const runView = (r: MarketsRun) => ({
  id: r.id,
  machineId: r.machineId,
  taskId: r.taskId,
  routeId: r.routeId,
  providerKey: r.providerKey,
  executionMode: r.executionMode,
  status: r.status,
  httpStatus: r.httpStatus,
  errorReason: r.errorReason,
  startedAt: r.startedAt.toISOString(),
  finishedAt: r.finishedAt.toISOString(),
});

export const outcomeView = (o: MarketsOutcome) => ({
  id: o.id,
  machineId: o.machineId,
  taskId: o.taskId,
  runId: o.runId,
  kind: o.kind,
  result: o.result as JsonObject,
  createdAt: o.createdAt.toISOString(),
});

export type TaskView = ReturnType<typeof taskView>;
export type RouteView = ReturnType<typeof routeView>;
export type RunView = ReturnType<typeof runView>;
export type OutcomeView = ReturnType<typeof outcomeView>;
