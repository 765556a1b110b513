/**
 * Codes of the peer-to-peer delivery (docs/stream-marketplace.md "Peer-to-peer delivery"). A seller sends the ones a
 * buyer caused in a `delivery.error` frame before closing; a buyer throws them as P2pError.
 */
export const P2P_ERROR_CODES = [
  "FRAME_TOO_LARGE", // length prefix above the limit (refused before the body is read)
  "FRAME_MALFORMED", // not UTF-8 JSON, or not exactly one frame type's shape
  "FRAME_UNEXPECTED", // a valid frame at the wrong moment (e.g. data before its manifest, a second request)
  "HANDOFF_INVALID", // the connect handoff is not one the platform issued for this purchase, session and buyer
  "HANDOFF_EXPIRED", // the connect handoff's lifetime is over
  "CHUNK_NOT_BOUGHT", // a requested chunk is not among the delivery's chunks
  "RESUME_OFFSET_INVALID", // an offset beyond the chunk's ciphertext
  "CHUNK_UNAVAILABLE", // the seller cannot read the chunk's ciphertext
  "DELIVERY_INCOMPLETE", // the connection ended before every chunk's end frame (buyer side; resumable)
  "DELIVERY_REFUSED", // the seller answered delivery.error (buyer side; `message` carries the seller's code)
  "DATA_OUT_OF_ORDER", // a data frame not at the next expected offset, or past the manifest's encryptedSize
  "MANIFEST_MISMATCH", // the seller's manifest differs from the verified one the buyer paid for
  "SELLER_BUSY", // the seller serves its maximum of connections; sent on a connection over the cap, before reading it
  "SELLER_UNAVAILABLE", // the seller's own check of the handoff did not finish in time; try again
  "REQUEST_TIMEOUT", // the chunk.request did not arrive whole within the deadline counted from the connection's start
  "ACK_TIMEOUT", // the delivery.ack did not arrive within the deadline counted from the last chunk
  "SELLER_INTERNAL", // anything else on the seller's side (details stay in its log)
] as const;

export type P2pErrorCode = (typeof P2P_ERROR_CODES)[number];

export class P2pError extends Error {
  override readonly name = "P2pError";
  constructor(
    readonly code: P2pErrorCode,
    message: string,
  ) {
    super(`${code}: ${message}`);
  }
}
