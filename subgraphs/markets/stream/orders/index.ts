/**
 * Builds the stream order flow's services (the buyer's order flow, docs/stream-marketplace.md): orders and their
 * payment, the seller's delivery sessions, and the buyer's delivery. Wired into the markets subgraph by its index.ts.
 */
import type { Clock } from "../../../shared/clock.js";
import type { SubgraphRuntime } from "../../../shared/runtime.js";
import { DeliverySessionService } from "./delivery-session.service.js";
import type { PaymentChain } from "../../orders/payments/index.js";
import type { MarketsStore } from "../../common/store.js";
import { authenticateStreamAgent } from "../seller/agent.auth.js";
import type { DeliveryTokens } from "../seller/delivery.token.js";
import { StreamOrderDelivery } from "./stream-order.delivery.js";
import { StreamOrderService } from "./stream-order.service.js";
import { StreamOrderResolver } from "./stream-order.resolver.js";
import type { DeliveryTokenIssuer, StreamAgentAuth } from "./stream-order.ports.js";

export const STREAM_ORDER_RESOLVERS = [StreamOrderResolver] as const;

export interface StreamOrderServices {
  orders: StreamOrderService;
  sessions: DeliverySessionService;
  delivery: StreamOrderDelivery;
}

export function buildStreamOrderServices(
  runtime: SubgraphRuntime,
  store: MarketsStore,
  chain: PaymentChain,
  tokens: DeliveryTokens,
  clock: Clock,
): StreamOrderServices {
  const { config } = runtime;
  // The agent of that machine first, then rule 1 (authenticateStreamAgent checks both, in that order).
  const agents: StreamAgentAuth = async (tx, machineId, credentials) => {
    return { agentId: (await authenticateStreamAgent(store, tx, machineId, credentials)).agent.id };
  };
  // The seller side's token issuer: the chunk data route verifies what it issues (stream/seller/delivery.token.ts).
  const issue: DeliveryTokenIssuer = async ({ orderId, buyerId, chunkIds }) => {
    const issued = await tokens.issue({ scope: { orderId }, buyerId, chunkIds }, clock.now());
    return { token: issued.token, expiresAt: issued.expiresAt.toISOString() };
  };
  return {
    orders: new StreamOrderService(store, agents, chain, { proofRequired: config.payments.streamProofRequired, paymentTtlSeconds: config.marketsWork.streamOrderPaymentTtlSeconds }, clock),
    sessions: new DeliverySessionService(store, agents, clock),
    delivery: new StreamOrderDelivery(store, issue, clock),
  };
}
