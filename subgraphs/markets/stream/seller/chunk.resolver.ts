/**
 * Stream chunks and listings (REST: rest-shim/routes/markets/stream/seller.routes.ts). The ciphertext itself never
 * crosses GraphQL: `streamChunkUploadTarget` / `commitStreamChunkData` and `streamChunkDownload` authorise the
 * shim-side raw routes (rest-shim/stream-data.ts) that stream bytes to and from the storage driver.
 */
import { Arg, Int, Mutation, Query, Resolver } from "type-graphql";
import { JSONObjectScalar } from "../../../shared/json-object.scalar.js";
import type { MarketsDeps } from "../../deps.js";
import { CreateStreamListingInput, StreamListing, StreamListingChunksPage, StreamListingPage } from "./listing.type.js";
import { StreamChunk, StreamChunkDownloadTarget, StreamChunkResult, StreamChunkUploadTarget } from "./seller.type.js";

const Str = () => String;
const opt = { nullable: true } as const;

@Resolver()
export class StreamChunkResolver {
  constructor(private readonly deps: MarketsDeps) {}

  @Mutation(() => StreamChunkResult, { description: "POST /stream/chunks: 201 registered, 200 the same manifest again." })
  registerStreamChunk(
    @Arg("machineId", Str) machineId: string,
    @Arg("agentId", Str, opt) agentId: string | null,
    @Arg("agentToken", Str, opt) agentToken: string | null,
    @Arg("manifest", () => JSONObjectScalar, {
      description: "The signed chunk manifest, JSON so it stays exactly as signed; the service verifies it after the agent's credential, with the same error codes on REST and GraphQL.",
    })
    manifest: Record<string, unknown>,
    @Arg("metadata", () => JSONObjectScalar, {
      nullable: true,
      description: "Free-form JSON by design (up to the documented size; optional ISO 8601 timeStart / timeEnd give the chunk's time range).",
    })
    metadata: Record<string, unknown> | null,
  ) {
    return this.deps.streamChunks.register(machineId, { agentId, agentToken }, manifest, metadata);
  }

  @Query(() => StreamChunk, { description: "A chunk's manifest and storage state (public: manifests carry no key)." })
  streamChunk(@Arg("chunkId", Str) chunkId: string) {
    return this.deps.streamChunks.get(chunkId);
  }

  @Query(() => StreamChunkUploadTarget, { description: "PUT /stream/chunks/{chunkId}/data, step 1: authorise the agent." })
  streamChunkUploadTarget(
    @Arg("chunkId", Str) chunkId: string,
    @Arg("agentId", Str, opt) agentId: string | null,
    @Arg("agentToken", Str, opt) agentToken: string | null,
  ) {
    return this.deps.streamChunks.uploadTarget(chunkId, { agentId, agentToken });
  }

  @Mutation(() => StreamChunk, { description: "PUT /stream/chunks/{chunkId}/data, step 2: check the stored object, record it." })
  commitStreamChunkData(
    @Arg("chunkId", Str) chunkId: string,
    @Arg("agentId", Str, opt) agentId: string | null,
    @Arg("agentToken", Str, opt) agentToken: string | null,
    @Arg("storageRef", Str) storageRef: string,
  ) {
    return this.deps.streamChunks.commitData(chunkId, { agentId, agentToken }, storageRef);
  }

  @Query(() => StreamChunkDownloadTarget, { description: "GET /stream/chunks/{chunkId}/data: the delivery token checked." })
  streamChunkDownload(@Arg("chunkId", Str) chunkId: string, @Arg("deliveryToken", Str, opt) deliveryToken: string | null) {
    return this.deps.streamChunks.download(chunkId, deliveryToken);
  }

  @Mutation(() => StreamListing, { description: "POST /machines/{machineId}/stream/listings." })
  createStreamListing(
    @Arg("machineId", Str) machineId: string,
    @Arg("agentId", Str, opt) agentId: string | null,
    @Arg("agentToken", Str, opt) agentToken: string | null,
    @Arg("input", () => CreateStreamListingInput) input: CreateStreamListingInput,
  ) {
    return this.deps.streamListings.create(machineId, { agentId, agentToken }, input);
  }

  @Mutation(() => StreamListing, { description: "POST /machines/{machineId}/stream/listings/{listingId}/deactivate: out of sale and of the catalogue." })
  deactivateStreamListing(
    @Arg("machineId", Str) machineId: string,
    @Arg("listingId", Str) listingId: string,
    @Arg("agentId", Str, opt) agentId: string | null,
    @Arg("agentToken", Str, opt) agentToken: string | null,
  ) {
    return this.deps.streamListings.setActive(machineId, { agentId, agentToken }, listingId, false);
  }

  @Mutation(() => StreamListing, { description: "POST /machines/{machineId}/stream/listings/{listingId}/reactivate: back on sale and in the catalogue." })
  reactivateStreamListing(
    @Arg("machineId", Str) machineId: string,
    @Arg("listingId", Str) listingId: string,
    @Arg("agentId", Str, opt) agentId: string | null,
    @Arg("agentToken", Str, opt) agentToken: string | null,
  ) {
    return this.deps.streamListings.setActive(machineId, { agentId, agentToken }, listingId, true);
  }

  @Query(() => StreamListingPage, { description: "GET /stream/listings." })
  streamListings(
    @Arg("machineId", Str, opt) machineId: string | null,
    @Arg("storageProvider", Str, opt) storageProvider: string | null,
    @Arg("includeInactive", () => Boolean, opt) includeInactive: boolean | null,
    @Arg("limit", () => Int, opt) limit: number | null,
    @Arg("cursor", Str, opt) cursor: string | null,
    @Arg("from", Str, { nullable: true, description: "ISO 8601 instant: listings whose time range ends at or after it." }) from: string | null,
    @Arg("to", Str, { nullable: true, description: "ISO 8601 instant: listings whose time range starts at or before it." }) to: string | null,
  ) {
    return this.deps.streamListings.list({ machineId, storageProvider, includeInactive, from, to }, limit, cursor);
  }

  @Query(() => StreamListing, { description: "GET /stream/listings/{listingId}." })
  streamListing(@Arg("listingId", Str) listingId: string) {
    return this.deps.streamListings.get(listingId);
  }

  @Query(() => StreamListingChunksPage, { description: "GET /stream/listings/{listingId}/chunks." })
  streamListingChunks(
    @Arg("listingId", Str) listingId: string,
    @Arg("limit", () => Int, opt) limit: number | null,
    @Arg("cursor", Str, opt) cursor: string | null,
  ) {
    return this.deps.streamListings.chunks(listingId, limit, cursor);
  }
}
