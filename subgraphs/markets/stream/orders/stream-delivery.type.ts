/**
 * GraphQL types of the buyer's delivery of a stream order (`streamOrderDelivery`; REST
 * `GET /stream/orders/:orderId/delivery`, un-enveloped). The members are exactly those the REST body carries; the
 * delivery itself is a union on its mode, since a seller delivery and a platform delivery carry different members.
 */
import { createUnionType, Field, Float, ObjectType } from "type-graphql";
import { DateTimeScalar } from "../../../shared/date-time.scalar.js";
import { JSONObjectScalar } from "../../../shared/json-object.scalar.js";
import { StreamDeliverySessionStatus, StreamOrderStatus } from "./stream-order.type.js";

const S = () => String;
const N = { nullable: true } as const;

@ObjectType({ description: "A bought chunk of a platform delivery: its chunk data `url` (platform storage) or its storage `reference`." })
export class StreamDeliveryChunk {
  @Field(S) chunkId!: string;
  @Field(() => String, N) encryptedDataHash!: string | null;
  @Field(() => Float, N) encryptedSize!: number | null;
  @Field(() => String, {
    nullable: true,
    description: "The chunk data route (a path on the markets listener; send the token as a bearer). Null when the chunk is stored outside the platform.",
  })
  url?: string | null;
  @Field(() => String, { nullable: true, description: "The storage reference (walrus://, s3://, gdrive://) of a chunk stored outside the platform; else null." })
  reference?: string | null;
}

@ObjectType({ description: "A platform delivery: a bearer delivery token scoped to the order's buyer and chunks, and where each chunk is." })
export class StreamPlatformDelivery {
  @Field(S) sessionId!: string;
  @Field(S, { description: "platform." }) mode!: string;
  @Field(() => StreamDeliverySessionStatus) status!: StreamDeliverySessionStatus;
  @Field(S, { description: "A fresh delivery token on every answer." }) token!: string;
  @Field(S, { description: "Bearer." }) tokenType!: string;
  @Field(() => DateTimeScalar) tokenExpiresAt!: string;
  @Field(() => [StreamDeliveryChunk]) chunks!: StreamDeliveryChunk[];
}

@ObjectType({ description: "A seller delivery: the seller agent's delivery URL; the agent marks it delivered itself." })
export class StreamSellerDelivery {
  @Field(S) sessionId!: string;
  @Field(S, { description: "seller." }) mode!: string;
  @Field(() => StreamDeliverySessionStatus) status!: StreamDeliverySessionStatus;
  @Field(() => String, N) deliveryUrl!: string | null;
  @Field(() => String, N) message!: string | null;
}

export const StreamDelivery = createUnionType({
  name: "StreamDelivery",
  description: "The delivery of a stream order, by its session's mode.",
  types: () => [StreamPlatformDelivery, StreamSellerDelivery] as const,
  resolveType: (value) => ((value as { mode?: string }).mode === "seller" ? StreamSellerDelivery : StreamPlatformDelivery),
});

@ObjectType("StreamOrderDelivery", { description: "The buyer's delivery of a stream order: the wrapped chunk keys and how to fetch the chunks." })
export class StreamOrderDeliveryBody {
  @Field(S) orderId!: string;
  @Field(S) listingId!: string;
  @Field(S) machineId!: string;
  @Field(S) buyerId!: string;
  @Field(S) buyerPublicKeyHex!: string;
  @Field(() => StreamOrderStatus, { description: "ACCESS_PREPARED (seller delivery not marked yet) or DELIVERED." }) status!: StreamOrderStatus;
  @Field(() => [String]) chunkIds!: string[];
  @Field(() => [JSONObjectScalar], {
    description: "The peaq.stream.buyer-access.v1 documents of the bought chunks for the order's buyer and key, kept as JSON so their members and signatures stay exactly as signed.",
  })
  access!: Record<string, unknown>[];
  @Field(() => StreamDelivery) delivery!: typeof StreamDelivery;
}
