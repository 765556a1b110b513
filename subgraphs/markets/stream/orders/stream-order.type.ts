import { Field, InputType, ObjectType, registerEnumType } from "type-graphql";
import { DateTimeScalar } from "../../../shared/date-time.scalar.js";
import { JSONObjectScalar } from "../../../shared/json-object.scalar.js";

const S = () => String;
const N = { nullable: true } as const;
const J = () => JSONObjectScalar;
const D = () => DateTimeScalar;

/**
 * The stream order lifecycle (docs/stream-marketplace.md "States"). GraphQL names are UPPER_CASE; the internal values
 * are the stored spellings the services use, and REST answers them lowercase with underscores (`payment_pending`).
 */
export enum StreamOrderStatus {
  PAYMENT_PENDING = "payment_pending",
  PAID = "paid",
  ACCESS_PREPARED = "access_prepared",
  DELIVERED = "delivered",
  CANCELLED = "cancelled",
  EXPIRED = "expired",
}
registerEnumType(StreamOrderStatus, {
  name: "StreamOrderStatus",
  description: "PAYMENT_PENDING -> PAID -> ACCESS_PREPARED -> DELIVERED; PAYMENT_PENDING -> CANCELLED | EXPIRED (REST: lowercase).",
});

/** A delivery session's lifecycle; internal values are the stored spellings (REST: lowercase). */
export enum StreamDeliverySessionStatus {
  REQUESTED = "requested",
  PREPARING = "preparing",
  READY = "ready",
  DELIVERED = "delivered",
  FAILED = "failed",
}
registerEnumType(StreamDeliverySessionStatus, {
  name: "StreamDeliverySessionStatus",
  description: "REQUESTED -> PREPARING -> READY -> DELIVERED | FAILED; REQUESTED -> READY | FAILED; PREPARING -> FAILED (REST: lowercase).",
});

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
  @Field(() => [JSONObjectScalar]) access!: Record<string, unknown>[];
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

