import { Arg, Int, Mutation, Query, Resolver } from "type-graphql";
import { JSONObjectScalar } from "../../shared/json-object.scalar.js";
import type { MarketsDeps } from "../deps.js";
import { CreateMarketOrderInput, MarketOrder, MarketOrderPage, MarketPayment, OrderExecution, PaymentIntentResult } from "./order.type.js";

const S = () => String;
const token = () => ({ nullable: true, description: "The pairing token (x-agent-pairing-token or Authorization: Bearer on REST)." });

@Resolver(() => MarketOrder)
export class MarketOrderResolver {
  constructor(private readonly deps: MarketsDeps) {}

  @Mutation(() => MarketOrder, { description: "POST /market/orders" })
  createMarketOrder(@Arg("pairingToken", S, token()) pairingToken: string | null, @Arg("input", () => CreateMarketOrderInput) input: CreateMarketOrderInput) {
    return this.deps.orders.create(pairingToken, input);
  }

  @Query(() => MarketOrder, { description: "GET /market/orders/:orderId" })
  marketOrder(@Arg("orderId", S) orderId: string) {
    return this.deps.orders.get(orderId);
  }

  @Query(() => MarketOrderPage, { description: "GET /market/orders?machineId=" })
  marketOrders(
    @Arg("machineId", S) machineId: string,
    @Arg("limit", () => Int, { nullable: true }) limit: number | null,
    @Arg("cursor", () => String, { nullable: true }) cursor: string | null,
  ) {
    return this.deps.orders.list(machineId, { limit, cursor });
  }

  @Query(() => MarketPayment, { description: "GET /market/orders/:orderId/payment" })
  marketOrderPayment(@Arg("orderId", S) orderId: string) {
    return this.deps.payments.get(orderId);
  }

  @Mutation(() => PaymentIntentResult, { description: "POST /market/orders/:orderId/payment-intent (idempotent)" })
  createPaymentIntent(
    @Arg("pairingToken", S, token()) pairingToken: string | null,
    @Arg("orderId", S) orderId: string,
    @Arg("rail", () => String, { nullable: true }) rail: string | null,
    @Arg("details", () => JSONObjectScalar, { nullable: true }) details: Record<string, unknown> | null,
  ) {
    return this.deps.payments.intent(pairingToken, orderId, rail, details);
  }

  @Mutation(() => OrderExecution, { description: "POST /market/orders/:orderId/execute" })
  executeMarketOrder(@Arg("pairingToken", S, token()) pairingToken: string | null, @Arg("orderId", S) orderId: string) {
    return this.deps.orderExecutor.execute(pairingToken, orderId);
  }

  @Mutation(() => MarketOrder, { description: "POST /market/orders/:orderId/confirm" })
  confirmMarketOrder(@Arg("pairingToken", S, token()) pairingToken: string | null, @Arg("orderId", S) orderId: string) {
    return this.deps.orders.confirm(pairingToken, orderId);
  }

  @Mutation(() => MarketOrder, { description: "POST /market/orders/:orderId/dispute (reason required)" })
  disputeMarketOrder(
    @Arg("pairingToken", S, token()) pairingToken: string | null,
    @Arg("orderId", S) orderId: string,
    @Arg("reason", () => String, { nullable: true }) reason: string | null,
  ) {
    return this.deps.orders.dispute(pairingToken, orderId, reason);
  }

  @Mutation(() => MarketOrder, { description: "POST /market/orders/:orderId/cancel" })
  cancelMarketOrder(@Arg("pairingToken", S, token()) pairingToken: string | null, @Arg("orderId", S) orderId: string) {
    return this.deps.orders.cancel(pairingToken, orderId);
  }
}
