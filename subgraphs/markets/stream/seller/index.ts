/**
 * The seller side of the stream marketplace, built in one place for the subgraph's index.ts: signing keys, policies,
 * ingest (heartbeat, events), chunks (manifests, checked uploads, token-scoped downloads), buyer access, listings;
 * plus the delivery tokens (delivery.token.ts) the order and purchase flows issue. `STREAM_SELLER_RESOLVERS` are its
 * GraphQL resolver classes.
 */
import type { Clock } from "../../../shared/clock.js";
import type { SubgraphRuntime } from "../../../shared/runtime.js";
import { pairingSecrets } from "../../orders/pairing.token.js";
import { StreamBuyerAccessService } from "./buyer-access.service.js";
import { StreamChunkService } from "./chunk.service.js";
import { StreamChunkResolver } from "./chunk.resolver.js";
import { StreamSellerResolver } from "./seller.resolver.js";
import { DeliveryTokens } from "./delivery.token.js";
import { StreamEventService } from "./stream-event.service.js";
import { StreamListingService } from "./listing.service.js";
import { StreamPolicyService } from "./stream-policy.service.js";
import { StreamSigningKeyService } from "./signing-key.service.js";
import { LocalChunkStorage, localStorageRoot } from "../storage/local.js";
import type { ChunkStorageDriver } from "../storage/driver.js";
import type { MarketsStore } from "../../common/store.js";

export const STREAM_SELLER_RESOLVERS = [StreamSellerResolver, StreamChunkResolver] as const;

export interface StreamSellerServices {
  /** Where chunk ciphertext is kept (the local driver under <DATA_DIR>/stream-chunks). */
  streamStorage: ChunkStorageDriver;
  /** Issue with `issue({ scope, buyerId, chunkIds }, nowMs)` when a delivery is handed to a buyer. */
  deliveryTokens: DeliveryTokens;
  streamSigningKeys: StreamSigningKeyService;
  streamPolicies: StreamPolicyService;
  streamEvents: StreamEventService;
  streamChunks: StreamChunkService;
  streamBuyerAccess: StreamBuyerAccessService;
  streamListings: StreamListingService;
}

export function buildStreamSellerServices(runtime: SubgraphRuntime, store: MarketsStore, clock: Clock): StreamSellerServices {
  const { config } = runtime;
  const streamStorage = new LocalChunkStorage(localStorageRoot(config.dataDir));
  // The same secrets as the pairing tokens; the audience keeps the two kinds apart.
  const deliveryTokens = new DeliveryTokens(
    pairingSecrets(config.markets.pairingJwtSecrets, config.dataDir),
    config.namespace.didMethod,
    config.markets.deliveryTokenTtlSeconds,
  );
  return {
    streamStorage,
    deliveryTokens,
    streamSigningKeys: new StreamSigningKeyService(store, clock),
    streamPolicies: new StreamPolicyService(store, clock),
    streamEvents: new StreamEventService(store, clock),
    streamChunks: new StreamChunkService(store, streamStorage, deliveryTokens, clock),
    streamBuyerAccess: new StreamBuyerAccessService(store, clock),
    streamListings: new StreamListingService(store, clock),
  };
}
