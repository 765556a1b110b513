/** Peer-to-peer delivery (docs/stream-marketplace.md "Peer-to-peer delivery"): frames, decoder, seller server, buyer client. */
export * from "./errors.js";
export * from "./frames.js";
export * from "./decoder.js";
export * from "./reader.js";
export * from "./wire.js";
export * from "./limits.js";
export * from "./chunk-files.js";
export * from "./server.js";
export * from "./client.js";
