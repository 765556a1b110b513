/**
 * GraphQL operations of the purchase flow (public notes 3.4), the ones the REST routes of
 * rest-shim/routes/markets/stream/purchase.routes.ts map onto. Every answer is typed (purchase.type.ts,
 * purchase-delivery.type.ts). Request bodies stay `JSONObject` inputs: the services check their members after the
 * caller's credential, so a bad body answers the documented error code on REST and GraphQL alike
 * (docs/stream-marketplace.md "Purchase flow").
 */
import { Arg, Mutation, Query, Resolver } from "type-graphql";
import { JSONObjectScalar } from "../../../shared/json-object.scalar.js";
import type { MarketsDeps } from "../../deps.js";
import { DELIVERY_TRANSPORTS } from "./delivery-capability.service.js";
import { DeliveryTransport, PaymentRail, Purchase } from "./purchase.type.js";
import { DeliveryCapabilitiesResult, PreparedPurchaseAccess, PurchaseDelivery, PurchaseEvent, PurchaseHandoffGrant } from "./purchase-delivery.type.js";

const S = () => String;
const J = () => JSONObjectScalar;
const opt = { nullable: true } as const;
const token = { nullable: true, description: "The buyer's pairing token (x-agent-pairing-token on REST)." } as const;
const agentId = { nullable: true, description: "Machine-agent ID (x-machine-agent-id, or agentId in the body)." } as const;
const agentToken = { nullable: true, description: "Machine-agent token (x-machine-agent-token, or agentToken in the body)." } as const;

@Resolver()
export class StreamPurchaseResolver {
  constructor(private readonly deps: MarketsDeps) {}

  @Query(() => [PaymentRail], { description: "GET /payment-rails: transfer (chains, token, payTo) and x402." })
  paymentRails() {
    return this.deps.streamPurchases.rails.list();
  }

  @Query(() => [DeliveryTransport], { description: "GET /delivery-transports" })
  deliveryTransports() {
    return DELIVERY_TRANSPORTS;
  }

  @Mutation(() => DeliveryCapabilitiesResult, { description: "PUT /machines/:machineId/delivery-capabilities: { created, item }" })
  putDeliveryCapabilities(
    @Arg("machineId", S) machineId: string,
    @Arg("agentId", S, agentId) id: string | null,
    @Arg("agentToken", S, agentToken) secret: string | null,
    @Arg("input", J) input: Record<string, unknown>,
  ) {
    return this.deps.streamPurchases.capabilities.put(machineId, { agentId: id, agentToken: secret }, input);
  }

  @Mutation(() => Purchase, { description: "POST /purchases (createPurchase)" })
  createPurchase(@Arg("pairingToken", S, token) pairingToken: string | null, @Arg("input", J) input: Record<string, unknown>) {
    return this.deps.streamPurchases.purchases.create(pairingToken, input);
  }

  @Query(() => Purchase, { description: "GET /purchases/:purchaseId: the buyer (pairing token) or the seller's agent" })
  purchase(
    @Arg("purchaseId", S) purchaseId: string,
    @Arg("pairingToken", S, token) pairingToken: string | null,
    @Arg("agentId", S, agentId) id: string | null,
    @Arg("agentToken", S, agentToken) secret: string | null,
  ) {
    return this.deps.streamPurchases.purchases.get(pairingToken, { agentId: id, agentToken: secret }, purchaseId);
  }

  @Mutation(() => Purchase, { description: "POST /purchases/:purchaseId/payment-intent (createPurchasePaymentIntent)" })
  createPurchasePaymentIntent(
    @Arg("pairingToken", S, token) pairingToken: string | null,
    @Arg("purchaseId", S) purchaseId: string,
    @Arg("input", J, opt) input: Record<string, unknown> | null,
  ) {
    return this.deps.streamPurchases.purchases.intent(pairingToken, purchaseId, input);
  }

  @Mutation(() => Purchase, { description: "POST /purchases/:purchaseId/payment-proof (submitPurchasePaymentProof)" })
  submitPurchasePaymentProof(
    @Arg("pairingToken", S, token) pairingToken: string | null,
    @Arg("purchaseId", S) purchaseId: string,
    @Arg("input", J, opt) input: Record<string, unknown> | null,
  ) {
    return this.deps.streamPurchases.purchases.proof(pairingToken, purchaseId, input);
  }

  @Mutation(() => PurchaseDelivery, { description: "GET /purchases/:purchaseId/delivery (getPurchaseDelivery): issues a fresh connect handoff" })
  getPurchaseDelivery(@Arg("pairingToken", S, token) pairingToken: string | null, @Arg("purchaseId", S) purchaseId: string) {
    return this.deps.streamPurchases.delivery.delivery(pairingToken, purchaseId);
  }

  @Mutation(() => PurchaseEvent, { description: "POST /purchases/:purchaseId/events (createPurchaseEvent)" })
  createPurchaseEvent(
    @Arg("purchaseId", S) purchaseId: string,
    @Arg("input", J) input: Record<string, unknown>,
    @Arg("pairingToken", S, token) pairingToken: string | null,
    @Arg("agentId", S, agentId) id: string | null,
    @Arg("agentToken", S, agentToken) secret: string | null,
  ) {
    return this.deps.streamPurchases.events.record(pairingToken, { agentId: id, agentToken: secret }, purchaseId, input);
  }

  @Mutation(() => PreparedPurchaseAccess, { description: "POST /purchases/:purchaseId/prepare-access (seller agent): { item, access, deliverySession }" })
  preparePurchaseAccess(
    @Arg("purchaseId", S) purchaseId: string,
    @Arg("items", () => [JSONObjectScalar], {
      description:
        "peaq.stream.buyer-access.v1 entries, one per bought chunk: JSON, checked by the service after the agent's credential (PURCHASE_ACCESS_MISMATCH, the same on REST).",
    })
    items: Record<string, unknown>[],
    @Arg("agentId", S, agentId) id: string | null,
    @Arg("agentToken", S, agentToken) secret: string | null,
  ) {
    return this.deps.streamPurchases.delivery.prepareAccess(purchaseId, { agentId: id, agentToken: secret }, items);
  }

  @Mutation(() => PurchaseHandoffGrant, { description: "POST /stream/delivery-sessions/handoff/verify (the seller's delivery server)" })
  verifyPurchaseHandoff(
    @Arg("machineId", S) machineId: string,
    @Arg("handoffToken", S) handoffToken: string,
    @Arg("agentId", S, agentId) id: string | null,
    @Arg("agentToken", S, agentToken) secret: string | null,
  ) {
    return this.deps.streamPurchases.delivery.verifyHandoff(machineId, { agentId: id, agentToken: secret }, handoffToken);
  }
}
