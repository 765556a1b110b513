/**
 * GraphQL types of a purchase's delivery side (docs/stream-marketplace.md "Purchase flow", "Purchase delivery"): a
 * seller machine's delivery capabilities, the buyer's delivery descriptor with its connect handoff, purchase events,
 * the seller's prepared buyer access and the handoff check. Members are exactly the REST items of
 * rest-shim/routes/markets/stream/purchase.routes.ts, in the same order.
 */
import { Field, ObjectType } from "type-graphql";
import { DateTimeScalar } from "../../../shared/date-time.scalar.js";
import { JSONObjectScalar } from "../../../shared/json-object.scalar.js";
import { StreamDeliverySessionStatus } from "../orders/stream-order.type.js";
import { Purchase, PurchasePeer, PurchaseStatus } from "./purchase.type.js";

const S = () => String;
const SS = () => [String];
const D = () => DateTimeScalar;

@ObjectType({ description: "Where a delivery server listens: multiaddrs (libp2p) or host:port (tcp), and its libp2p peer ID." })
export class DeliveryCapabilityParams {
  @Field(SS) addresses!: string[];
  @Field(() => String, { nullable: true }) peerId!: string | null;
}

@ObjectType({ description: "One p2p transport a seller's delivery server speaks, normalised (defaults filled)." })
export class DeliveryCapability {
  @Field(S, { description: "libp2p or tcp." }) transportId!: string;
  @Field(S) version!: string;
  @Field(SS) features!: string[];
  @Field(SS) protocols!: string[];
  @Field(S) encoding!: string;
  @Field(() => DeliveryCapabilityParams) params!: DeliveryCapabilityParams;
}

@ObjectType({ description: "A seller machine's announced delivery capabilities; purchases negotiate against them until expiresAt." })
export class MachineDeliveryCapabilities {
  @Field(S) machineId!: string;
  @Field(S, { description: "The machine agent that announced them." }) agentId!: string;
  @Field(() => [DeliveryCapability]) capabilities!: DeliveryCapability[];
  @Field(SS, { description: "stream.listing and/or stream.bundle." }) resourceTypes!: string[];
  @Field(D, { nullable: true }) expiresAt!: string | null;
  @Field(D) updatedAt!: string;
}

@ObjectType({ description: "PUT delivery-capabilities: the announcement, and whether it is the machine's first (REST: 201 then 200)." })
export class DeliveryCapabilitiesResult {
  @Field(() => Boolean) created!: boolean;
  @Field(() => MachineDeliveryCapabilities) item!: MachineDeliveryCapabilities;
}

@ObjectType({ description: "A connect handoff: shown once, presented by the buyer to the seller's delivery server." })
export class PurchaseHandoff {
  @Field(S, { description: "`shof_` + 43 base64url characters." }) token!: string;
  @Field(D) expiresAt!: string;
}

@ObjectType({ description: "The negotiated p2p delivery session of a purchase." })
export class PurchaseDeliverySession {
  @Field(S) sessionId!: string;
  @Field(() => StreamDeliverySessionStatus) status!: string;
  @Field(S, { description: "p2p." }) mode!: string;
  @Field(S) transportId!: string;
  @Field(S) version!: string;
  @Field(SS) protocols!: string[];
  @Field(S) encoding!: string;
  @Field(SS) features!: string[];
  @Field(() => PurchasePeer, { description: "The live announcement's addresses, else those negotiated." }) peer!: PurchasePeer;
  @Field(() => PurchaseHandoff, { nullable: true, description: "A fresh handoff while PAID or DELIVERING; null after." }) handoff!: PurchaseHandoff | null;
  @Field(SS) chunkIds!: string[];
}

@ObjectType({ description: "The buyer's wrapped content key of one chunk (sealed to the buyer's x25519 key)." })
export class PurchaseBuyerAccessKey {
  @Field(S) recipientId!: string;
  @Field(S, { description: "buyer." }) recipientType!: string;
  @Field(S) algorithm!: string;
  @Field(S) publicKeyHex!: string;
  @Field(S) wrappedKeyHex!: string;
}

@ObjectType({ description: "A peaq.stream.buyer-access.v1 entry of one bought chunk, as the platform stored it." })
export class PurchaseBuyerAccess {
  @Field(S) schemaVersion!: string;
  @Field(S) chunkId!: string;
  @Field(() => PurchaseBuyerAccessKey) buyer!: PurchaseBuyerAccessKey;
}

@ObjectType({ description: "GET /purchases/:purchaseId/delivery: the session descriptor and the access prepared so far." })
export class PurchaseDelivery {
  @Field(S) purchaseId!: string;
  @Field(() => PurchaseStatus) status!: string;
  @Field(() => PurchaseDeliverySession) delivery!: PurchaseDeliverySession;
  @Field(() => [PurchaseBuyerAccess], { description: "Bought chunks only, in purchase order." }) access!: PurchaseBuyerAccess[];
}

@ObjectType({ description: "Who recorded a purchase event: the buyer or the seller." })
export class PurchaseEventActor {
  @Field(S, { description: "buyer or seller." }) type!: string;
  @Field(S) id!: string;
}

@ObjectType({ description: "A recorded purchase event and the purchase's status after it." })
export class PurchaseEvent {
  @Field(S, { description: "`spev_…`." }) id!: string;
  @Field(S) purchaseId!: string;
  @Field(S, { description: "buyer.connected, delivery.acknowledged, purchase.completed, delivery.failed or purchase.cancelled." }) type!: string;
  @Field(() => PurchaseEventActor) actor!: PurchaseEventActor;
  @Field(() => JSONObjectScalar, { description: "Free-form JSON by design (up to 4 KiB), as the caller sent it." }) data!: Record<string, unknown>;
  @Field(() => PurchaseStatus) purchaseStatus!: string;
  @Field(D) createdAt!: string;
}

@ObjectType({ description: "The delivery session after prepare-access (a requested session becomes READY)." })
export class PreparedPurchaseSession {
  @Field(S) id!: string;
  @Field(() => StreamDeliverySessionStatus) status!: string;
}

@ObjectType({ description: "POST prepare-access: the purchase, the stored access entries and the delivery session." })
export class PreparedPurchaseAccess {
  @Field(() => Purchase) item!: Purchase;
  @Field(() => [PurchaseBuyerAccess]) access!: PurchaseBuyerAccess[];
  @Field(() => PreparedPurchaseSession, { nullable: true }) deliverySession!: PreparedPurchaseSession | null;
}

@ObjectType({ description: "A valid connect handoff, as the seller's delivery server checks it." })
export class PurchaseHandoffGrant {
  @Field(S) purchaseId!: string;
  @Field(S) sessionId!: string;
  @Field(S) machineId!: string;
  @Field(S) buyerId!: string;
  @Field(S) buyerPublicKeyHex!: string;
  @Field(SS) chunkIds!: string[];
  @Field(S) transportId!: string;
  @Field(D, { description: "The handoff's expiry." }) expiresAt!: string;
  @Field(() => PurchaseStatus) purchaseStatus!: string;
}
