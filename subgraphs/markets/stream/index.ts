/** The stream formats (docs/stream-formats.md): used by the seller CLI, the markets server and the buyer alike. */
export * from "./errors.js";
export * from "./encoding.js";
export * from "./primitives.js";
export * from "./sealed-box.js";
export * from "./manifest.js";
export * from "./chunk.js";
export * from "./access.js";
export * from "./envelope.js";
export * from "./verify.js";
export * from "./stream.js";
export * from "./storage/driver.js";
export * from "./storage/local.js";
