import { Arg, FieldResolver, Int, Mutation, Query, Resolver, Root } from "type-graphql";
import { DateTimeScalar } from "../../../shared/date-time.scalar.js";
import { JSONObjectScalar } from "../../../shared/json-object.scalar.js";
import type { MarketsDeps } from "../../deps.js";
import {
  CreateStreamOrderInput,
  PreparedStreamAccess,
  StreamAgentInput,
  StreamOrder,
  StreamOrderDeliverySession,
  StreamOrderDeliverySessionPage,
  StreamOrderPage,
  StreamPaymentProofInput,
} from "./stream-order.type.js";
import { StreamOrderDeliveryBody } from "./stream-delivery.type.js";

const S = () => String;
const OPT = { nullable: true } as const;

@Resolver(() => StreamOrder)
export class StreamOrderResolver {
  constructor(private readonly deps: MarketsDeps) {}

  @Mutation(() => StreamOrder, { description: "POST /stream/orders" })
  createStreamOrder(@Arg("input", () => CreateStreamOrderInput) input: CreateStreamOrderInput) {
    return this.deps.streamOrders.orders.create(input);
  }

  @Query(() => StreamOrder, { description: "GET /stream/orders/:orderId" })
  streamOrder(@Arg("orderId", S) orderId: string) {
    return this.deps.streamOrders.orders.get(orderId);
  }

  @Query(() => StreamOrderPage, { description: "GET /machines/:machineId/stream/orders (the machine's agent)" })
  machineStreamOrders(
    @Arg("agent", () => StreamAgentInput) agent: StreamAgentInput,
    @Arg("limit", () => Int, OPT) limit: number | null,
    @Arg("cursor", () => String, OPT) cursor: string | null,
  ) {
    return this.deps.streamOrders.orders.listForMachine(agent.machineId, agent, { limit, cursor });
  }

  @Mutation(() => StreamOrder, { description: "POST /stream/orders/:orderId/payment" })
  payStreamOrder(
    @Arg("orderId", S) orderId: string,
    @Arg("paymentReference", S) paymentReference: string,
    @Arg("proof", () => StreamPaymentProofInput, OPT) proof: StreamPaymentProofInput | null,
  ) {
    return this.deps.streamOrders.orders.pay(orderId, { paymentReference, proof: proof == null ? null : { ...proof } });
  }

  @Mutation(() => PreparedStreamAccess, { description: "POST /stream/orders/:orderId/prepare-access (the machine's agent)" })
  prepareStreamOrderAccess(
    @Arg("orderId", S) orderId: string,
    @Arg("agent", () => StreamAgentInput) agent: StreamAgentInput,
    @Arg("items", () => [JSONObjectScalar], {
      description: "Signed peaq.stream.buyer-access.v1 documents, one per bought chunk: JSON, kept as signed; the service validates each "
        + "after the agent's credential (VALIDATION_ERROR, STREAM_ORDER_ACCESS_INVALID, STREAM_ORDER_ACCESS_MISMATCH, the same on REST).",
    })
    items: Record<string, unknown>[],
    @Arg("mode", () => String, OPT) mode: string | null,
  ) {
    return this.deps.streamOrders.sessions.prepareAccess(orderId, { ...agent, items, mode });
  }

  @Mutation(() => StreamOrderDeliverySessionPage, { description: "POST /stream/delivery-sessions/poll (the machine's agent)" })
  pollStreamDeliverySessions(
    @Arg("agent", () => StreamAgentInput) agent: StreamAgentInput,
    @Arg("statuses", () => [String], OPT) statuses: string[] | null,
    @Arg("limit", () => Int, OPT) limit: number | null,
  ) {
    return this.deps.streamOrders.sessions.poll({ ...agent, statuses, limit });
  }

  @Mutation(() => StreamOrderDeliverySession, { description: "PATCH /stream/delivery-sessions/:sessionId (the machine's agent)" })
  updateStreamDeliverySession(
    @Arg("sessionId", S) sessionId: string,
    @Arg("agent", () => StreamAgentInput) agent: StreamAgentInput,
    @Arg("status", () => String, OPT) status: string | null,
    @Arg("deliveryUrl", () => String, OPT) deliveryUrl: string | null,
    @Arg("message", () => String, OPT) message: string | null,
  ) {
    return this.deps.streamOrders.sessions.patch(sessionId, { ...agent, status, deliveryUrl, message });
  }

  @FieldResolver(() => DateTimeScalar)
  paymentDueAt(@Root() order: StreamOrder): string {
    return this.deps.streamOrders.orders.paymentDueAt(order.createdAt);
  }

  @Mutation(() => StreamOrderDeliveryBody, { description: "GET /stream/orders/:orderId/delivery?buyerId= (un-enveloped on REST; marks delivered)" })
  streamOrderDelivery(@Arg("orderId", S) orderId: string, @Arg("buyerId", S) buyerId: string) {
    return this.deps.streamOrders.delivery.delivery(orderId, buyerId);
  }
}
