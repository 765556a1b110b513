/**
 * The work family: the machine graph, the service catalogue with quotes, and tasks and their executor, built from the
 * runtime for the subgraph's index.ts. Each is a set of files (`graph.*`, `catalogue.*`, `task.*`); `WORK_RESOLVERS`
 * are the family's GraphQL resolver classes. Policies are their own family (../policies/).
 */
import type { Clock } from "../../shared/clock.js";
import type { SubgraphRuntime } from "../../shared/runtime.js";
import type { MarketsStore } from "../common/store.js";
import { CatalogueResolver } from "./catalogue.resolver.js";
import { CatalogueRepository } from "./catalogue.repository.js";
import { CatalogueService } from "./catalogue.service.js";
import { GraphRepository } from "./graph.repository.js";
import { GraphService } from "./graph.service.js";
import { GraphResolver } from "./graph.resolver.js";
import { MarketMachineWorkResolver } from "./machine-work.resolver.js";
import { TaskExecutor, type EndpointLookup } from "./task.executor.js";
import { TaskRepository } from "./task.repository.js";
import { TaskService } from "./task.service.js";
import { TaskResolver } from "./task.resolver.js";
import { auditWriter, machineCheckOn, type AuditWriter } from "../common/support.js";

export interface WorkServices {
  graph: GraphService;
  catalogue: CatalogueService;
  tasks: TaskService;
  executor: TaskExecutor;
}

export const WORK_RESOLVERS = [GraphResolver, CatalogueResolver, TaskResolver] as const;
/** The work fields of a market machine (its graph and tasks). */
export const MACHINE_WORK_RESOLVERS = [MarketMachineWorkResolver] as const;

export interface WorkOptions {
  /** The markets store: its guard is global rule 1 for the graph, catalogue and task writes. */
  store: MarketsStore;
  /** The live runtime endpoint of a machine for a provider, auth token decrypted (runtime-endpoint family). */
  endpoints: EndpointLookup;
  /** Tests wrap the audit writer to inject a failure after the write. */
  audit?: AuditWriter;
}

export async function buildWorkServices(runtime: SubgraphRuntime, clock: Clock, options: WorkOptions): Promise<WorkServices> {
  const { db, log } = runtime;
  const audit = options.audit ?? auditWriter(clock);
  const machineCheck = machineCheckOn(options.store);
  const catalogue = new CatalogueService(new CatalogueRepository(db, log), machineCheck, clock, runtime.config.marketsWork.quoteTtlSeconds);
  await catalogue.seed();
  const tasks = new TaskService(new TaskRepository(db, log), catalogue, machineCheck, audit, clock);
  return {
    graph: new GraphService(new GraphRepository(db, log), machineCheck, audit, clock),
    catalogue,
    tasks,
    executor: new TaskExecutor(tasks, (id, tx) => catalogue.service(id, tx), options.endpoints, runtime.outbound, runtime.config.marketsWork.providerTimeoutMs, runtime.config.marketsWork.executionDeadlineSeconds * 1000),
  };
}
