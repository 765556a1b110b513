/** The stream seller side's resolvers (issue 10s), added to the markets schema in one line (schema.ts). */
import { StreamChunkResolver } from "./stream-chunk.resolver.js";
import { StreamSellerResolver } from "./stream-seller.resolver.js";

export const STREAM_SELLER_RESOLVERS = [StreamSellerResolver, StreamChunkResolver] as const;
