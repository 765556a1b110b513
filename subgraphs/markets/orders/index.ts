/**
 * The orders family: agent pairings with their delegation policy and session tokens, market orders and their
 * execution through the work family's task executor, and payments (orders/payments/: intents, the chain rails,
 * proofs, escrow and x402 settlement). Built from the runtime for the subgraph's index.ts; `ORDER_RESOLVERS` are
 * its GraphQL resolver classes.
 */
import type { Clock } from "../../shared/clock.js";
import type { SubgraphRuntime } from "../../shared/runtime.js";
import { machineCheckOn } from "../common/support.js";
import type { MarketsStore } from "../common/store.js";
import type { WorkServices } from "../work/index.js";
// Resolvers in registration order (the order of fields in the printed SDL).
import { AgentPairingResolver } from "./pairing.resolver.js";
import { MarketOrderResolver } from "./order.resolver.js";
import { MarketMachineOrdersResolver } from "./machine-orders.resolver.js";
import { PaymentSettlementResolver } from "./payments/settlement.resolver.js";
import { MarketDisputeResolver } from "./dispute.resolver.js";
import { DisputeService } from "./dispute.service.js";
import { BearerTokens } from "../../shared/bearer.js";
import { OrderExecutor } from "./order.execution.js";
import { OrderRecovery } from "./order.recovery.js";
import { OrderService } from "./order.service.js";
import { PairingService } from "./pairing.service.js";
import { PairingTokens, pairingSecrets } from "./pairing.token.js";
import { chainRails } from "./payments/chain.rails.js";
import { PaymentChain } from "./payments/index.js";
import { DEFAULT_RAILS, PaymentService, type PaymentRails } from "./payments/payment.service.js";
import { PaymentSettlementService } from "./payments/settlement.service.js";

export interface OrderServices {
  /** Agent pairings; `authenticate(tx, token, machineId)` is Authentication 3 for every market write. */
  pairings: PairingService;
  orders: OrderService;
  orderExecutor: OrderExecutor;
  /** Payment intents and reads; rails are dispatched by `PaymentRails` (payments/payment.service.ts). */
  payments: PaymentService;
  /** The rail implementations by rail type (`not-required` here; the chain rails add theirs). */
  rails: PaymentRails;
  /** The chain side of the payment rails (payments/index.ts). */
  paymentChain: PaymentChain;
  /** Proof, escrow lock, release, refund and the x402 settlement (payments/settlement.service.ts). */
  settlements: PaymentSettlementService;
  /** The arbiter's resolution of disputed orders, with the operator's credential (dispute.service.ts). */
  disputes: DisputeService;
  /** Orders executing past their deadline end `failed`, an escrowed payment refunded (order.recovery.ts). */
  recovery: OrderRecovery;
}

export const ORDER_RESOLVERS = [AgentPairingResolver, MarketOrderResolver, MarketMachineOrdersResolver, PaymentSettlementResolver, MarketDisputeResolver] as const;

/** The base of the resource URLs the x402 rail names in its payment requirements. */
export const resourceBaseOf = (runtime: SubgraphRuntime) => `http://${runtime.config.host}:${runtime.config.marketsPort}/api/v1`;

export function buildOrderServices(runtime: SubgraphRuntime, store: MarketsStore, work: WorkServices, clock: Clock): OrderServices {
  const { config } = runtime;
  const settings = config.markets;
  const namespace = config.namespace.didMethod;
  const tokens = new PairingTokens(pairingSecrets(settings.pairingJwtSecrets, config.dataDir), namespace, settings.pairingTokenTtlSeconds);
  const pairings = new PairingService(
    store,
    tokens,
    { verification: settings.pairingVerification, challengeTtlSeconds: settings.pairingChallengeTtlSeconds, namespace },
    clock,
  );
  const orders = new OrderService(store, pairings, work.catalogue, machineCheckOn(store), clock);
  const paymentChain = new PaymentChain({
    chainId: config.chain.chainId,
    reader: runtime.chain,
    addresses: runtime.chain.addresses,
    chain: config.chain,
    payments: config.payments,
    faucetKey: config.ratings.faucet.privateKey ?? null,
  });
  const settlements = new PaymentSettlementService(orders, paymentChain, clock);
  const orderExecutor = new OrderExecutor(orders, work.tasks, work.executor, settlements, config.marketsWork.executionDeadlineSeconds * 1000);
  const recovery = new OrderRecovery(store, work.tasks, paymentChain, clock, runtime.log);
  orders.recovery = recovery;
  // The one place rails are registered: each entry implements one MarketPaymentRailType (payments/payment.service.ts).
  const rails: PaymentRails = { ...DEFAULT_RAILS, ...chainRails(paymentChain, resourceBaseOf(runtime)) };
  const payments = new PaymentService(store, pairings, rails, clock);
  const disputes = new DisputeService(store, paymentChain, new BearerTokens(config.operatorTokens), clock);
  return { pairings, orders, orderExecutor, payments, rails, paymentChain, settlements, disputes, recovery };
}
