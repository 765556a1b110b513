/**
 * Builds the markets subgraph (document 3) from the shared runtime by composing its families, each built by its
 * folder's index.ts:
 *
 *   common/    the store (transactions), global rule 1's machine guard, pagination, errors, the audit writer
 *   machines/  identity challenges, machine records, runtime endpoints, machine agents
 *   work/      the machine graph, the catalogue, tasks and their executor
 *   policies/  cross-cutting policies: records, the kinds' rules, their enforcement on tasks, orders and purchases
 *   audit/     reading the audit log
 *   orders/    agent pairings, market orders, payments (orders/payments/)
 *   stream/    the stream formats library, plus seller/, orders/ and purchases/
 *   lifecycle/ the job expiring unpaid stream orders and purchases and recovering executions past their deadline
 *
 * The services go to the resolvers as `MarketsDeps` (deps.ts) and are returned as `services` for the process entry
 * and the tests. Adding a family: a folder whose index.ts builds its services and lists its resolver classes, then
 * one line each here and in schema.ts. Services that change state write their audit event with
 * `recordAuditEvent(tx, ...)` inside their own transaction (common/audit.repository.ts) and check global rule 1 with
 * `requireActiveMachine(tx, id)` (common/machine.guard.ts).
 */
import { systemClock } from "../shared/clock.js";
import { DomainError } from "../shared/errors.js";
import type { BackgroundJob, BuiltSubgraph, SubgraphRuntime } from "../shared/runtime.js";
import { MachineGuard } from "./common/machine.guard.js";
import { MarketsStore } from "./common/store.js";
import { IdentityResolver } from "./machines/identity/identity.resolution.js";
import type { MarketsDeps } from "./deps.js";
import { buildMachineServices, type MachineServices } from "./machines/index.js";
import { buildMarketsSchema } from "./schema.js";
import { buildAuditServices, type AuditServices } from "./audit/index.js";
import { buildOrderServices, resourceBaseOf, type OrderServices } from "./orders/index.js";
import { buildStreamOrderServices, type StreamOrderServices } from "./stream/orders/index.js";
import { buildStreamPurchaseServices, type StreamPurchaseServices } from "./stream/purchases/index.js";
import { buildStreamSellerServices, type StreamSellerServices } from "./stream/seller/index.js";
import { buildWorkServices, type WorkServices } from "./work/index.js";
import { buildPolicyServices, type PolicyServices } from "./policies/index.js";
import { buildLifecycleSweep, lifecycleJob, type LifecycleSweep } from "./lifecycle/index.js";
import type { ExecutionEndpoint } from "./work/task.executor.js";

export interface MarketsServices extends MachineServices, WorkServices, PolicyServices, AuditServices, OrderServices, StreamSellerServices {
  /** Transactions of every markets write (and the tests' failure injection before commit). */
  store: MarketsStore;
  /** Stream orders, their payment, delivery sessions and delivery (stream/orders/). */
  streamOrders: StreamOrderServices;
  /** The stream purchase flow (stream/purchases/). */
  streamPurchases: StreamPurchaseServices;
  /** The lifecycle job's sweep (lifecycle/): expiry of unpaid stream orders and purchases, execution recovery. */
  lifecycle: LifecycleSweep;
}

export async function buildMarketsSubgraph(runtime: SubgraphRuntime): Promise<BuiltSubgraph<MarketsServices>> {
  const { db, log, config } = runtime;
  const settings = config.markets;
  const clock = runtime.clock ?? systemClock;
  const identity = new IdentityResolver(runtime.chain);
  const store = new MarketsStore(db, log, new MachineGuard(identity));
  const machines = buildMachineServices(runtime, store, identity, clock);
  const work = await buildWorkServices(runtime, clock, {
    store,
    endpoints: (machineId, providerKey, tx) => liveEndpoint(() => machines.runtimeEndpoints.resolveForExecution(tx ?? db.statement, machineId, providerKey)),
  });
  const orders = buildOrderServices(runtime, store, work, clock);
  const streamSeller = buildStreamSellerServices(runtime, store, clock);
  const services: MarketsServices = {
    store,
    ...machines,
    ...work,
    ...buildPolicyServices(runtime, clock),
    ...buildAuditServices(runtime),
    ...orders,
    ...streamSeller,
    streamOrders: buildStreamOrderServices(runtime, store, orders.paymentChain, streamSeller.deliveryTokens, clock),
    streamPurchases: buildStreamPurchaseServices(
      store,
      orders.pairings,
      orders.paymentChain,
      resourceBaseOf(runtime),
      clock,
      config.marketsWork.streamPurchasePaymentTtlSeconds,
    ),
    lifecycle: buildLifecycleSweep(runtime, store, work.tasks, orders.recovery, clock),
  };
  const deps: MarketsDeps = services;
  const schema = await buildMarketsSchema(deps);
  const jobs: BackgroundJob[] = [
    {
      name: "identity challenge cleanup",
      intervalMs: settings.identityCleanupIntervalMs,
      run: () => machines.identityChallenges.cleanup(settings.identityCleanupGraceSeconds),
    },
    {
      name: "machine session cleanup",
      intervalMs: settings.identityCleanupIntervalMs,
      run: () => machines.machineSessions.cleanup(settings.identityCleanupGraceSeconds),
    },
    {
      name: "pairing challenge cleanup",
      intervalMs: settings.identityCleanupIntervalMs,
      run: () => orders.pairings.cleanup(settings.identityCleanupGraceSeconds),
    },
    lifecycleJob(runtime, services.lifecycle),
  ];
  return { schema, services, jobs };
}

/** The executor's view of a runtime endpoint lookup: none (NOT_FOUND, or a lapsed lease) is null. */
async function liveEndpoint(lookup: () => Promise<ExecutionEndpoint>): Promise<ExecutionEndpoint | null> {
  try {
    return await lookup();
  } catch (error) {
    if (error instanceof DomainError && error.code === "NOT_FOUND") return null;
    throw error;
  }
}
