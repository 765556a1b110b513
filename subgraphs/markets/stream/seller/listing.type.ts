/** GraphQL types of stream listings. */
import { Field, Float, InputType, Int, ObjectType, registerEnumType } from "type-graphql";
import { DateTimeScalar } from "../../../shared/date-time.scalar.js";
import { JSONObjectScalar } from "../../../shared/json-object.scalar.js";
import { StreamSigningKey } from "./seller.type.js";

const S = () => String;
const N = { nullable: true } as const;
const D = () => DateTimeScalar;

/** A listing's state; internal values are the stored spellings (REST: lowercase). */
export enum StreamListingStatus {
  ACTIVE = "active",
  INACTIVE = "inactive",
}
registerEnumType(StreamListingStatus, {
  name: "StreamListingStatus",
  description: "ACTIVE (on sale, in the catalogue) <-> INACTIVE (deactivated by its seller) (REST: lowercase).",
});

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
  @Field(D, { nullable: true, description: "The earliest start of its chunks' times." }) timeStart!: string | null;
  @Field(D, { nullable: true, description: "The latest end of its chunks' times." }) timeEnd!: string | null;
  @Field(() => StreamListingStatus) status!: StreamListingStatus;
  @Field(() => String, { nullable: true, description: "The data.stream catalogue service advertising it." }) serviceId!: string | null;
  @Field(D) createdAt!: string;
  @Field(D) updatedAt!: string;
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
  @Field(D, { description: "When the chunk was registered: a chunk signed by a since-revoked key is valid only if registered before the revocation." })
  registeredAt!: string;
  @Field(() => JSONObjectScalar, { description: "The signed manifest (wrapped keys only), kept as JSON so its members and signature stay exactly as signed." }) manifest!: Record<string, unknown>;
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
