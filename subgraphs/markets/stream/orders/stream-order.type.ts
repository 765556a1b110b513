import { Field, InputType, ObjectType } from "type-graphql";
import { statusEnum } from "../../common/status-enum.js";
import { DELIVERY_SESSION_STATUSES, STREAM_ORDER_STATUSES, type DeliverySessionStatus, type StreamOrderStatus as StreamOrderStatusValue } from "./stream-order.states.js";
import { DateTimeScalar } from "../../../shared/date-time.scalar.js";
import { JSONObjectScalar } from "../../../shared/json-object.scalar.js";

const S = () => String;
const N = { nullable: true } as const;
const J = () => JSONObjectScalar;
const D = () => DateTimeScalar;

/**
 * The stream order lifecycle (docs/stream-marketplace.md "States"), over the service's state list; REST answers the
 * stored spellings (`payment_pending`).
 */
export const StreamOrderStatus = statusEnum(
  "StreamOrderStatus",
  STREAM_ORDER_STATUSES,
  "PAYMENT_PENDING -> PAID -> ACCESS_PREPARED -> DELIVERED; PAYMENT_PENDING -> CANCELLED | EXPIRED (REST: lowercase).",
);
export type StreamOrderStatus = StreamOrderStatusValue;

/** A delivery session's lifecycle (REST: lowercase). */
export const StreamDeliverySessionStatus = statusEnum(
  "StreamDeliverySessionStatus",
  DELIVERY_SESSION_STATUSES,
  "REQUESTED -> PREPARING -> READY -> DELIVERED | FAILED; REQUESTED -> READY | FAILED; PREPARING -> FAILED (REST: lowercase).",
);
export type StreamDeliverySessionStatus = DeliverySessionStatus;

@ObjectType({ description: "A stream order's price: the listing's, or its pricePerChunk times the chosen chunks." })
export class StreamOrderPrice {
  @Field(S) amount!: string;
  @Field(S) currency!: string;
}

@ObjectType({ description: "A stream order (order-based flow, public notes 3.2)." })
export class StreamOrder {
  @Field(S) id!: string;
  @Field(S) listingId!: string;
  @Field(S) machineId!: string;
  @Field(S) buyerId!: string;
  @Field(S, { description: "The buyer's X25519 public key, 64 lowercase hex characters." }) buyerPublicKeyHex!: string;
  @Field(() => [String]) chunkIds!: string[];
  @Field(() => StreamOrderStatus) status!: StreamOrderStatus;
  @Field(() => StreamOrderPrice) price!: StreamOrderPrice;
  @Field(() => String, N) paymentReference!: string | null;
  @Field(J, { nullable: true, description: "The checked on-chain transfer: chainId, txHash, token, from, to, amountRaw, block, logIndex." })
  paymentProof!: Record<string, unknown> | null;
  @Field(() => String, { nullable: true, description: "The address whose transfer pays the order, bound at creation (payerAddress, or a buyerId that is an address)." })
  payerAddress!: string | null;
  @Field(D, N) paidAt!: string | null;
  @Field(D, N) accessPreparedAt!: string | null;
  @Field(D, N) deliveredAt!: string | null;
  @Field(D) createdAt!: string;
  @Field(D) updatedAt!: string;
  @Field(D, {
    description: "The payment deadline: createdAt plus STREAM_ORDER_PAYMENT_TTL_SECONDS. An order still PAYMENT_PENDING at this moment expires.",
  })
  paymentDueAt!: string;
}

@ObjectType()
export class StreamOrderPage {
  @Field(() => [StreamOrder]) items!: StreamOrder[];
  @Field(() => String, N) nextCursor!: string | null;
}

@ObjectType({ description: "A delivery session of a stream order, as the seller's agent sees it." })
export class StreamOrderDeliverySession {
  @Field(S) id!: string;
  @Field(S) machineId!: string;
  @Field(() => String, N) orderId!: string | null;
  @Field(S, { description: "platform | seller." }) mode!: string;
  @Field(() => StreamDeliverySessionStatus) status!: StreamDeliverySessionStatus;
  @Field(() => String, N) deliveryUrl!: string | null;
  @Field(() => String, N) message!: string | null;
  @Field(() => String, N) buyerId!: string | null;
  @Field(() => String, N) buyerPublicKeyHex!: string | null;
  @Field(() => [String]) chunkIds!: string[];
  @Field(D) createdAt!: string;
  @Field(D) updatedAt!: string;
}

@ObjectType()
export class StreamOrderDeliverySessionPage {
  @Field(() => [StreamOrderDeliverySession]) items!: StreamOrderDeliverySession[];
  @Field(() => String, N) nextCursor!: string | null;
}

@ObjectType({ description: "prepare-access: the order, the stored access entries and the delivery session." })
export class PreparedStreamAccess {
  @Field(() => StreamOrder) item!: StreamOrder;
  @Field(() => [JSONObjectScalar], {
    description: "The stored peaq.stream.buyer-access.v1 documents, kept as JSON so their members and signatures stay exactly as signed.",
  })
  access!: Record<string, unknown>[];
  @Field(() => StreamOrderDeliverySession) deliverySession!: StreamOrderDeliverySession;
}

@InputType()
export class CreateStreamOrderInput {
  @Field(S) listingId!: string;
  @Field(S) buyerId!: string;
  @Field(S) buyerPublicKeyHex!: string;
  @Field(() => [String], N) chunkIds?: string[] | null;
  @Field(() => String, { nullable: true, description: "The EVM address the buyer pays from; only its transfer pays the order. Default: buyerId when it is an address." })
  payerAddress?: string | null;
}

@InputType({ description: "An on-chain payment proof: the transfer's chain and transaction." })
export class StreamPaymentProofInput {
  @Field(S, { description: "Decimal chain ID." }) chainId!: string;
  @Field(S) txHash!: string;
}

@InputType({ description: "The seller's machine agent (x-machine-agent-id / x-machine-agent-token on REST, or agentId / agentToken in the body)." })
export class StreamAgentInput {
  @Field(S) machineId!: string;
  @Field(() => String, N) agentId?: string | null;
  @Field(() => String, N) agentToken?: string | null;
}

