/**
 * Builds the markets subgraph (document 3) from the shared runtime: one service per resource family, handed to the
 * resolvers as `MarketsDeps` (deps.ts) and returned as `services` for the process entry and tests.
 *
 * Adding a resource family: build its repository and service here, add the service to `MarketsServices`, and its
 * resolver class to schema.ts. Services that change state write their audit event with `recordAuditEvent(tx, ...)`
 * inside their own transaction (audit.repository.ts) and check global rule 1 with `requireActiveMachine(tx, id)`
 * (machine-guard.ts).
 */
import { systemClock } from "../shared/clock.js";
import type { BuiltSubgraph, SubgraphRuntime } from "../shared/runtime.js";
import type { MarketsDeps } from "./deps.js";
import { MarketsMachineRepository } from "./machine.repository.js";
import { buildMarketsSchema } from "./schema.js";
import { buildWorkServices, type WorkServices } from "./work.js";

export interface MarketsServices extends WorkServices {}

export async function buildMarketsSubgraph(runtime: SubgraphRuntime): Promise<BuiltSubgraph<MarketsServices>> {
  const { db, log } = runtime;
  const clock = runtime.clock ?? systemClock;
  const work = await buildWorkServices(runtime, clock, { endpoints: async () => null });
  const services: MarketsServices = { ...work };
  const deps: MarketsDeps = { ...services, machines: new MarketsMachineRepository(db, log) };
  const schema = await buildMarketsSchema(deps);
  return { schema, services };
}
