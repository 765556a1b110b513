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
import { SecretBox } from "../shared/crypto/secret-box.js";
import type { BackgroundJob, BuiltSubgraph, SubgraphRuntime } from "../shared/runtime.js";
import type { MarketsDeps } from "./deps.js";
import { IdentityChallengeService } from "./identity-challenge.service.js";
import { IdentityResolver } from "./machine-identity.js";
import { MarketsMachineRepository } from "./machine.repository.js";
import { MarketMachineRepository } from "./market-machine.repository.js";
import { MarketMachineService } from "./market-machine.service.js";
import { buildMarketsSchema } from "./schema.js";
import { MarketsStore } from "./store.js";
import { buildWorkServices, type WorkServices } from "./work.js";
import type { ExecutionEndpoint } from "./task.executor.js";
import { DomainError } from "../shared/errors.js";
import { MachineAgentRepository } from "./machine-agent.repository.js";
import { MachineAgentService } from "./machine-agent.service.js";
import { RuntimeEndpointRepository } from "./runtime-endpoint.repository.js";
import { RuntimeEndpointService } from "./runtime-endpoint.service.js";
import { PairingService } from "./pairing.service.js";
import { PairingTokens, pairingSecrets } from "./pairing.token.js";
import { OrderService } from "./order.service.js";
import { OrderExecutor } from "./order.execution.js";
import { DEFAULT_RAILS, PaymentService, type PaymentRails } from "./payment.service.js";
import { machineCheckOn } from "./work-support.js";
import { PaymentChain } from "./payments/index.js";
import { chainRails } from "./payments/rails.js";
import { PaymentSettlementService } from "./payment-settlement.service.js";
import { buildStreamOrderServices, type StreamOrderServices } from "./stream-orders.js";
import { buildStreamPurchaseServices, type StreamPurchaseServices } from "./stream-purchase.build.js";
import { buildStreamSellerServices, type StreamSellerServices } from "./stream-seller.js";

export interface MarketsServices extends WorkServices, StreamSellerServices {
  /** Transactions of every markets write (and the tests' failure injection before commit). */
  store: MarketsStore;
  identityChallenges: IdentityChallengeService;
  marketMachines: MarketMachineService;
  /** Runtime endpoints; `resolveForExecution(tx, machineId, providerKey)` gives the task executor URL and credentials. */
  runtimeEndpoints: RuntimeEndpointService;
  machineAgents: MachineAgentService;
  /** Agent pairings; `authenticate(tx, token, machineId)` is Authentication 3 for every market write. */
  pairings: PairingService;
  orders: OrderService;
  orderExecutor: OrderExecutor;
  /** Payment intents and reads; rails are dispatched by `PaymentRails` (payment.service.ts). */
  payments: PaymentService;
  /** The rail implementations by rail type (`not-required` here; the chain rails add theirs). */
  rails: PaymentRails;
  /** The chain side of the payment rails (payments/index.ts). */
  paymentChain: PaymentChain;
  /** Proof, escrow lock, release, refund and the x402 settlement (payment-settlement.service.ts). */
  settlements: PaymentSettlementService;
  /** Stream orders, their payment, delivery sessions and delivery (stream-orders.ts). */
  streamOrders: StreamOrderServices;
  /** Issue 10 purchase flow (stream-purchase.build.ts). */
  streamPurchases: StreamPurchaseServices;
}

export async function buildMarketsSubgraph(runtime: SubgraphRuntime): Promise<BuiltSubgraph<MarketsServices>> {
  const { db, log, config } = runtime;
  const settings = config.markets;
  const clock = runtime.clock ?? systemClock;
  const namespace = config.namespace.didMethod;
  const store = new MarketsStore(db, log);
  const identityChallenges = new IdentityChallengeService(
    store,
    new IdentityResolver(runtime.chain),
    namespace,
    settings.identityChallengeTtlSeconds,
    clock,
  );
  const marketMachines = new MarketMachineService(
    store,
    new MarketMachineRepository(store),
    identityChallenges,
    settings.identityVerification,
    clock,
  );
  const endpointRows = new RuntimeEndpointRepository();
  const runtimeEndpoints = new RuntimeEndpointService(store, endpointRows, settings.secretsKey ? new SecretBox(settings.secretsKey) : null, clock);
  const machineAgents = new MachineAgentService(
    store,
    runtimeEndpoints,
    new MachineAgentRepository(),
    { maxLeaseSeconds: settings.maxLeaseSeconds, maxEndpoints: settings.maxHeartbeatEndpoints },
    clock,
  );
  const work = await buildWorkServices(runtime, clock, {
    endpoints: (machineId, providerKey) => liveEndpoint(() => runtimeEndpoints.resolveForExecution(db.prisma, machineId, providerKey)),
  });
  const tokens = new PairingTokens(pairingSecrets(settings.pairingJwtSecrets, config.dataDir), namespace, settings.pairingTokenTtlSeconds);
  const pairings = new PairingService(
    store,
    tokens,
    { verification: settings.pairingVerification, challengeTtlSeconds: settings.pairingChallengeTtlSeconds, namespace },
    clock,
  );
  const orders = new OrderService(store, pairings, work.catalogue, machineCheckOn(db.prisma), clock);
  const paymentChain = new PaymentChain({
    chainId: config.chain.chainId,
    reader: runtime.chain,
    addresses: runtime.chain.addresses,
    chain: config.chain,
    payments: config.payments,
  });
  const settlements = new PaymentSettlementService(orders, paymentChain, clock);
  const orderExecutor = new OrderExecutor(orders, work.tasks, work.executor, settlements);
  // The one place rails are registered: each entry implements one MarketPaymentRailType (payment.service.ts).
  const resourceBase = `http://${config.host}:${config.marketsPort}/api/v1`;
  const rails: PaymentRails = { ...DEFAULT_RAILS, ...chainRails(paymentChain, resourceBase) };
  const payments = new PaymentService(store, pairings, rails, clock);
  const streamSeller = buildStreamSellerServices(runtime, store, clock);
  const services: MarketsServices = {
    ...work,
    store,
    identityChallenges,
    marketMachines,
    runtimeEndpoints,
    machineAgents,
    pairings,
    orders,
    orderExecutor,
    payments,
    rails,
    paymentChain,
    settlements,
    ...streamSeller,
    streamOrders: buildStreamOrderServices(runtime, store, paymentChain, streamSeller.deliveryTokens, clock),
    streamPurchases: buildStreamPurchaseServices(store, pairings, paymentChain, resourceBase, clock),
  };
  const deps: MarketsDeps = { ...services, machines: new MarketsMachineRepository(db, log) };
  const schema = await buildMarketsSchema(deps);
  const jobs: BackgroundJob[] = [
    {
      name: "identity challenge cleanup",
      intervalMs: settings.identityCleanupIntervalMs,
      run: () => identityChallenges.cleanup(settings.identityCleanupGraceSeconds),
    },
    {
      name: "pairing challenge cleanup",
      intervalMs: settings.identityCleanupIntervalMs,
      run: () => pairings.cleanup(settings.identityCleanupGraceSeconds),
    },
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
