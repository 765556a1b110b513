/** The resolver classes of the graph, catalogue, task, policy and audit families (schema.ts adds them). */
import { AuditResolver } from "./audit.resolver.js";
import { CatalogueResolver } from "./catalogue.resolver.js";
import { GraphResolver } from "./graph.resolver.js";
import { MarketMachineWorkResolver } from "./market-machine-work.resolver.js";
import { PolicyResolver } from "./policy.resolver.js";
import { TaskResolver } from "./task.resolver.js";

export const WORK_RESOLVERS = [GraphResolver, CatalogueResolver, TaskResolver, PolicyResolver, AuditResolver, MarketMachineWorkResolver] as const;
