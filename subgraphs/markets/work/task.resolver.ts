import { Arg, Int, Mutation, Query, Resolver } from "type-graphql";
import type { MarketsDeps } from "../deps.js";
import {
  MarketOutcomePage,
  MarketRoutePage,
  MarketRun,
  MarketRunPage,
  MarketTask,
  MarketTaskInput,
  MarketTaskPage,
  TaskExecution,
} from "./task.type.js";
import { MACHINE_SESSION_ARG } from "../machines/identity/machine-session.type.js";

const S = () => String;
const opt = { nullable: true } as const;

@Resolver()
export class TaskResolver {
  constructor(private readonly deps: MarketsDeps) {}

  @Query(() => MarketTaskPage, { description: "GET /machines/:machineId/tasks (newest first)" })
  machineTasks(
    @Arg("machineId", S) machineId: string,
    @Arg("status", S, { nullable: true, description: "A MarketTaskStatus in its stored spelling (queued ... handoff): a string, checked by the service, so an unknown value answers VALIDATION_ERROR as on REST." }) status: string | null,
    @Arg("limit", () => Int, opt) limit: number | null,
    @Arg("cursor", S, opt) cursor: string | null,
  ): Promise<MarketTaskPage> {
    return this.deps.tasks.list(machineId, { limit, cursor }, status);
  }

  @Query(() => MarketTask, { description: "GET /machines/:machineId/tasks/:taskId" })
  machineTask(@Arg("machineId", S) machineId: string, @Arg("taskId", S) taskId: string): Promise<MarketTask> {
    return this.deps.tasks.get(machineId, taskId);
  }

  @Query(() => MarketRoutePage, { description: "GET /machines/:machineId/routes" })
  machineRoutes(
    @Arg("machineId", S) machineId: string,
    @Arg("limit", () => Int, opt) limit: number | null,
    @Arg("cursor", S, opt) cursor: string | null,
  ): Promise<MarketRoutePage> {
    return this.deps.tasks.routes(machineId, { limit, cursor });
  }

  @Query(() => MarketOutcomePage, { description: "GET /machines/:machineId/outcomes" })
  machineOutcomes(
    @Arg("machineId", S) machineId: string,
    @Arg("limit", () => Int, opt) limit: number | null,
    @Arg("cursor", S, opt) cursor: string | null,
  ): Promise<MarketOutcomePage> {
    return this.deps.tasks.outcomes(machineId, { limit, cursor });
  }

  @Query(() => MarketRunPage, { description: "GET /runs?machineId=&taskId=&status=&providerKey=&since=&until= (machineId required)" })
  marketRuns(
    @Arg("machineId", S, opt) machineId: string | null,
    @Arg("taskId", S, opt) taskId: string | null,
    @Arg("status", S, { nullable: true, description: "A MarketRunStatus in its stored spelling (succeeded, failed, handoff): a string, checked by the service, so an unknown value answers VALIDATION_ERROR as on REST." }) status: string | null,
    @Arg("providerKey", S, opt) providerKey: string | null,
    @Arg("since", S, opt) since: string | null,
    @Arg("until", S, opt) until: string | null,
    @Arg("limit", () => Int, opt) limit: number | null,
    @Arg("cursor", S, opt) cursor: string | null,
  ): Promise<MarketRunPage> {
    return this.deps.tasks.runs({ machineId, taskId, status, providerKey, since, until }, { limit, cursor });
  }

  @Query(() => MarketRun, { description: "GET /runs/:runId" })
  marketRun(@Arg("runId", S) runId: string): Promise<MarketRun> {
    return this.deps.tasks.run(runId);
  }

  @Mutation(() => MarketTask, { description: "POST /machines/:machineId/tasks (201, queued)" })
  async createTask(@Arg("machineId", S) machineId: string, @Arg("input", () => MarketTaskInput) input: MarketTaskInput, @Arg("machineSession", () => String, MACHINE_SESSION_ARG) machineSession: string | null): Promise<MarketTask> {
    await this.deps.machineSessions.authorize(machineSession, machineId);
    return this.deps.tasks.create(machineId, input);
  }

  @Mutation(() => MarketTask, { description: "POST /machines/:machineId/tasks/:taskId/discover" })
  async discoverTask(@Arg("machineId", S) machineId: string, @Arg("taskId", S) taskId: string, @Arg("machineSession", () => String, MACHINE_SESSION_ARG) machineSession: string | null): Promise<MarketTask> {
    await this.deps.machineSessions.authorize(machineSession, machineId);
    return this.deps.tasks.discover(machineId, taskId);
  }

  @Mutation(() => MarketTask, { description: "POST /machines/:machineId/tasks/:taskId/resolve (201); serviceId: one of the candidates, default the best." })
  async resolveTask(
    @Arg("machineId", S) machineId: string,
    @Arg("taskId", S) taskId: string,
    @Arg("serviceId", S, opt) serviceId: string | null,
    @Arg("machineSession", () => String, MACHINE_SESSION_ARG) machineSession: string | null,
  ): Promise<MarketTask> {
    await this.deps.machineSessions.authorize(machineSession, machineId);
    return this.deps.tasks.resolve(machineId, taskId, serviceId);
  }

  @Mutation(() => TaskExecution, { description: "POST /machines/:machineId/tasks/:taskId/execute" })
  async executeTask(@Arg("machineId", S) machineId: string, @Arg("taskId", S) taskId: string, @Arg("machineSession", () => String, MACHINE_SESSION_ARG) machineSession: string | null): Promise<TaskExecution> {
    await this.deps.machineSessions.authorize(machineSession, machineId);
    return this.deps.executor.execute(machineId, taskId);
  }
}
