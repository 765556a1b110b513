/** Peer-to-peer delivery (docs/stream-marketplace.md "Peer-to-peer delivery"): frames, decoder, seller server, buyer client, over TCP and libp2p. */
export * from "./errors.js";
export * from "./frames.js";
export * from "./decoder.js";
export * from "./reader.js";
export * from "./wire.js";
export * from "./limits.js";
export * from "./chunk-files.js";
export * from "./server.js";
export * from "./client.js";
export * from "./libp2p.js";
export * from "./peer-key.store.js";
