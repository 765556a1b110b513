/** GraphQL types of stream listings. */
import { Field, Float, InputType, Int, ObjectType } from "type-graphql";
import { JSONObjectScalar } from "../../../shared/json-object.scalar.js";
import { StreamSigningKey } from "./seller.type.js";

const S = () => String;
const N = { nullable: true } as const;

@ObjectType()
@InputType("StreamPriceInput")
export class StreamPrice {
  @Field(S, { description: "Decimal string." }) amount!: string;
  @Field(S) currency!: string;
}

@InputType()
export class CreateStreamListingInput {
  @Field(S) title!: string;
  @Field(() => [String]) chunkIds!: string[];
  @Field(() => StreamPrice) price!: StreamPrice;
  @Field(() => String, N) topic?: string | null;
  @Field(() => String, { nullable: true, description: "Decimal string, in the price's currency: what each chunk of a strict subset costs." })
  pricePerChunk?: string | null;
}

@ObjectType({ description: "A listing: a machine's stored chunks for sale. Never plaintext, never a key." })
export class StreamListing {
  @Field(S) id!: string;
  @Field(S) machineId!: string;
  @Field(() => String, N) identityRef!: string | null;
  @Field(S) title!: string;
  @Field(() => String, N) topic!: string | null;
  @Field(() => [String]) chunkIds!: string[];
  @Field(() => Int) chunkCount!: number;
  @Field(() => Float) totalBytes!: number;
  @Field(S, { description: "The scheme of the chunks' storage references (local, s3, ...)." }) storageProvider!: string;
  @Field(() => StreamPrice) price!: StreamPrice;
  @Field(() => String, N) pricePerChunk!: string | null;
  @Field(() => String, { nullable: true, description: "The earliest start of its chunks' times (ISO 8601)." }) timeStart!: string | null;
  @Field(() => String, { nullable: true, description: "The latest end of its chunks' times (ISO 8601)." }) timeEnd!: string | null;
  @Field(S, { description: "active | inactive." }) status!: string;
  @Field(() => String, { nullable: true, description: "The data.stream catalogue service advertising it." }) serviceId!: string | null;
  @Field(S) createdAt!: string;
  @Field(S) updatedAt!: string;
}

@ObjectType()
export class StreamListingPage {
  @Field(() => [StreamListing]) items!: StreamListing[];
  @Field(() => String, N) nextCursor!: string | null;
}

@ObjectType()
export class StreamListingChunk {
  @Field(S) chunkId!: string;
  @Field(() => Int) index!: number;
  @Field(() => Float) encryptedSize!: number;
  @Field(S, { description: "When the chunk was registered: a chunk signed by a since-revoked key is valid only if registered before the revocation." })
  registeredAt!: string;
  @Field(() => JSONObjectScalar, { description: "The signed manifest (wrapped keys only)." }) manifest!: Record<string, unknown>;
}

@ObjectType({ description: "A listing's manifests in order and the machine's signing keys, to check before buying." })
export class StreamListingChunksPage {
  @Field(S) listingId!: string;
  @Field(S) machineId!: string;
  @Field(() => String, { nullable: true, description: "The signer DID the manifests must carry." }) machineDid!: string | null;
  @Field(() => [StreamSigningKey]) signingKeys!: StreamSigningKey[];
  @Field(() => [StreamListingChunk]) items!: StreamListingChunk[];
  @Field(() => String, N) nextCursor!: string | null;
}
