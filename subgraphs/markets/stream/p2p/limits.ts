/**
 * Bounds of the seller's delivery server (docs/stream-marketplace.md "Bounds of the delivery server"). What a buyer
 * may hold on the seller is bounded at every moment of a connection, and no bound is renewed by a byte arriving:
 * - at most `maxConnections` connections at once; one more gets `delivery.error` SELLER_BUSY and is closed unread;
 * - before authorization: the first frame must be the `chunk.request`, at most `maxRequestBytes` long (a longer length
 *   prefix is FRAME_TOO_LARGE from its four bytes), received whole within `requestTimeoutMs` of the connection's
 *   start (REQUEST_TIMEOUT; a deadline, not an idle timer); the seller's own check of it then has `authorizeTimeoutMs`
 *   (SELLER_UNAVAILABLE);
 * - while sending: the bound is on progress, not on wall time: bytes go to the connection in pieces of
 *   PROGRESS_SLICE_BYTES, and each piece must be taken within `progressTimeoutMs` (a buyer reading 64 KiB per 30 s,
 *   about 2 KiB/s, finishes any size; one that stops reading is cut, and resumes later from the bytes it holds);
 * - after the last chunk: the `delivery.ack` must arrive within `ackTimeoutMs` (ACK_TIMEOUT).
 */

/**
 * The largest `chunk.request` a buyer sends (a longer chunk list is asked for over several connections, client.ts), and
 * so the least a seller may accept.
 */
export const REQUEST_FRAME_MAX_BYTES = 16 * 1024;
/** Bytes handed to the connection at a time while sending; each must be taken within the progress timeout. */
export const PROGRESS_SLICE_BYTES = 64 * 1024;
/** How long a refused connection may take to read its `delivery.error` before it is cut. */
export const REFUSAL_GRACE_MS = 1_000;

export interface DeliveryLimits {
  /** Connections served at once (STREAM_P2P_MAX_CONNECTIONS). */
  maxConnections: number;
  /** Largest frame a buyer may send, the request included (STREAM_P2P_MAX_REQUEST_BYTES). */
  maxRequestBytes: number;
  /** From the connection's start to the whole request received (STREAM_P2P_REQUEST_TIMEOUT_MS). */
  requestTimeoutMs: number;
  /** The seller's check of the request: handoff, purchase, buyer (STREAM_P2P_AUTHORIZE_TIMEOUT_MS). */
  authorizeTimeoutMs: number;
  /** Time for the buyer to take each PROGRESS_SLICE_BYTES while data is sent (STREAM_P2P_PROGRESS_TIMEOUT_MS). */
  progressTimeoutMs: number;
  /** From the last chunk handed over to the buyer's delivery.ack (STREAM_P2P_ACK_TIMEOUT_MS). */
  ackTimeoutMs: number;
}

export const DEFAULT_DELIVERY_LIMITS: DeliveryLimits = {
  maxConnections: 32,
  maxRequestBytes: REQUEST_FRAME_MAX_BYTES,
  requestTimeoutMs: 10_000,
  authorizeTimeoutMs: 30_000,
  progressTimeoutMs: 30_000,
  ackTimeoutMs: 60_000,
};

/** A deadline for one phase of a connection: `run` races the work against it; the timer never restarts. */
export function withDeadline<T>(work: Promise<T>, ms: number, onExpiry: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expiry = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(onExpiry()), ms);
  });
  return Promise.race([work, expiry]).finally(() => clearTimeout(timer));
}
