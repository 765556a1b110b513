/**
 * GraphQL types of the purchase flow (docs/stream-marketplace.md "Purchase flow"). Members are exactly the REST items of
 * rest-shim/routes/markets/stream/purchase.routes.ts, in the same order; `JSONObject` remains only for members whose
 * shape depends on the rail chosen (each says so in its description).
 */
import { createUnionType, Field, Int, ObjectType } from "type-graphql";
import { statusEnum } from "../../common/status-enum.js";
import { PURCHASE_STATUSES, type PurchaseStatus as PurchaseStatusValue } from "./purchase.repository.js";
import { DateTimeScalar } from "../../../shared/date-time.scalar.js";
import { JSONObjectScalar } from "../../../shared/json-object.scalar.js";

const S = () => String;
const N = { nullable: true } as const;
const J = () => JSONObjectScalar;
const D = () => DateTimeScalar;

/** The purchase lifecycle (docs/stream-marketplace.md "States"), over the service's state list (REST: lowercase). */
export const PurchaseStatus = statusEnum(
  "PurchaseStatus",
  PURCHASE_STATUSES,
  "DELIVERY_RESERVING -> PAYMENT_PENDING | FAILED | CANCELLED; PAYMENT_PENDING -> PAID | CANCELLED | EXPIRED; PAID -> DELIVERING -> DELIVERED | FAILED; DELIVERED -> COMPLETED (REST: lowercase).",
);
export type PurchaseStatus = PurchaseStatusValue;

@ObjectType({ description: "The chunks a purchase buys." })
export class PurchaseSelection {
  @Field(() => [String]) chunkIds!: string[];
}

@ObjectType({ description: "What a purchase buys: a stream listing (`type` is `stream.listing`) and its chunk selection." })
export class PurchaseResource {
  @Field(S) type!: string;
  @Field(S) listingId!: string;
  @Field(() => PurchaseSelection) selection!: PurchaseSelection;
}

@ObjectType({ description: "The buyer's public key: `type` is `x25519`, the key 64 lowercase hex characters." })
export class PurchaseBuyerKey {
  @Field(S) type!: string;
  @Field(S) publicKeyHex!: string;
}

@ObjectType({ description: "A delivery capability the buyer declared, normalised: transport, version (null when not given) and features." })
export class PurchaseBuyerCapability {
  @Field(S) transportId!: string;
  @Field(() => String, N) version!: string | null;
  @Field(() => [String]) features!: string[];
}

@ObjectType({ description: "The seller's delivery server as negotiated: machine, addresses, libp2p peer ID (null for tcp)." })
export class PurchasePeer {
  @Field(S) machineId!: string;
  @Field(() => [String]) addresses!: string[];
  @Field(() => String, N) peerId!: string | null;
}

@ObjectType({ description: "The p2p delivery negotiated between the seller's live capabilities and the buyer's." })
export class PurchaseNegotiatedDelivery {
  @Field(S, { description: "p2p." }) mode!: string;
  @Field(S) transportId!: string;
  @Field(S) version!: string;
  @Field(() => [String]) protocols!: string[];
  @Field(S) encoding!: string;
  @Field(() => [String]) features!: string[];
  @Field(() => PurchasePeer) peer!: PurchasePeer;
}

@ObjectType({ description: "The buyer of a purchase." })
export class PurchaseBuyer {
  @Field(S, { description: "The pairing's agent DID (else its address)." }) id!: string;
  @Field(() => PurchaseBuyerKey) publicKey!: PurchaseBuyerKey;
  @Field(() => [PurchaseBuyerCapability]) deliveryCapabilities!: PurchaseBuyerCapability[];
}

@ObjectType({ description: "A purchase's price: the listing's, or its pricePerChunk times the chosen chunks." })
export class PurchasePrice {
  @Field(S) amount!: string;
  @Field(S) currency!: string;
}

@ObjectType({ description: "Why a purchase failed: an error code and its message." })
export class PurchaseFailure {
  @Field(S) code!: string;
  @Field(S) message!: string;
}

@ObjectType({ description: "A stream purchase (purchase flow, public notes 3.4)." })
export class Purchase {
  @Field(S) id!: string;
  @Field(() => PurchaseStatus) status!: PurchaseStatus;
  @Field(() => PurchaseResource) resource!: PurchaseResource;
  @Field(S) machineId!: string;
  @Field(() => PurchaseBuyer) buyer!: PurchaseBuyer;
  @Field(() => PurchasePrice) price!: PurchasePrice;
  @Field(() => PurchaseNegotiatedDelivery, { nullable: true, description: "Null until negotiated, and when the purchase failed." })
  delivery!: PurchaseNegotiatedDelivery | null;
  @Field(() => PurchaseFailure, N) failure!: PurchaseFailure | null;
  @Field(() => String, { nullable: true, description: "The rail of the payment intent: transfer or x402." }) rail!: string | null;
  @Field(J, { nullable: true, description: "The payment intent; JSONObject because its members are the rail's (transfer or x402 requirements)." })
  paymentIntent!: Record<string, unknown> | null;
  @Field(J, { nullable: true, description: "The checked payment; JSONObject because its members are the rail's proof (transfer receipt or x402 settlement)." })
  payment!: Record<string, unknown> | null;
  @Field(D, N) paidAt!: string | null;
  @Field(D, N) completedAt!: string | null;
  @Field(D) createdAt!: string;
  @Field(D) updatedAt!: string;
  @Field(D, {
    description: "The payment deadline: createdAt plus STREAM_PURCHASE_PAYMENT_TTL_SECONDS. A purchase still PAYMENT_PENDING at this moment expires.",
  })
  paymentDueAt!: string;
}

@ObjectType({ description: "A token of a payment rail." })
export class PaymentRailToken {
  @Field(S) address!: string;
  @Field(() => Int) decimals!: number;
  @Field(S) symbol!: string;
}

@ObjectType({ description: "A chain a transfer may pay on." })
export class PaymentRailChain {
  @Field(S) chain!: string;
  @Field(S) chainId!: string;
  @Field(() => PaymentRailToken) token!: PaymentRailToken;
  @Field(S) payTo!: string;
  @Field(() => Int) confirmations!: number;
}

@ObjectType({ description: "The transfer rail: an ERC-20 transfer to payTo on one of the chains, proven by its transactionHash." })
export class TransferPaymentRail {
  @Field(S) type!: string;
  @Field(() => [PaymentRailChain]) chains!: PaymentRailChain[];
  @Field(() => PaymentRailToken) token!: PaymentRailToken;
  @Field(S) payTo!: string;
  @Field(S) proof!: string;
}

@ObjectType({ description: "The x402 token's EIP-712 domain name and version." })
export class X402RailExtra {
  @Field(S) name!: string;
  @Field(S) version!: string;
}

@ObjectType({ description: "The x402 rail (exact scheme) on the platform's home chain." })
export class X402PaymentRail {
  @Field(S) type!: string;
  @Field(() => Int) x402Version!: number;
  @Field(S) scheme!: string;
  @Field(S) network!: string;
  @Field(S) asset!: string;
  @Field(S) payTo!: string;
  @Field(() => X402RailExtra) extra!: X402RailExtra;
}

export const PaymentRail = createUnionType({
  name: "PaymentRail",
  description: "A payment rail a purchase may use, by its `type`.",
  types: () => [TransferPaymentRail, X402PaymentRail] as const,
  resolveType: (value) => ((value as { type?: string }).type === "x402" ? X402PaymentRail : TransferPaymentRail),
});

@ObjectType({ description: "A delivery transport the platform negotiates between seller and buyer." })
export class DeliveryTransport {
  @Field(S) mode!: string;
  @Field(S) transportId!: string;
  @Field(() => [String]) protocols!: string[];
  @Field(() => [String]) encodings!: string[];
  @Field(S) addressFormat!: string;
  @Field(() => [String]) features!: string[];
}
