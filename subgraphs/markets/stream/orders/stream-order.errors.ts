/**
 * Error codes of the stream order flow; statuses in rest-shim/errors/markets.ts
 * ("Stream marketplace: order flow") and docs/markets-errors.md ("Stream marketplace").
 */
import { DomainError } from "../../../shared/errors.js";

const error = (code: string, message: string) => () => new DomainError(code, message);

export const StreamOrderErrors = {
  validation: error("VALIDATION_ERROR", "The request is not valid."),
  listingNotFound: error("STREAM_LISTING_NOT_FOUND", "The stream listing was not found."),
  listingInactive: error("STREAM_LISTING_INACTIVE", "The stream listing is not active."),
  chunkNotInListing: error("STREAM_CHUNK_NOT_IN_LISTING", "A chunk is not part of the listing."),
  orderNotFound: error("STREAM_ORDER_NOT_FOUND", "The stream order was not found."),
  orderStateInvalid: error("STREAM_ORDER_STATE_INVALID", "The stream order is not in a state that allows this."),
  orderExpired: error("STREAM_ORDER_EXPIRED", "The stream order expired unpaid; create a new order."),
  orderNotPaid: error("STREAM_ORDER_NOT_PAID", "The stream order is not paid."),
  accessNotPrepared: error("STREAM_ACCESS_NOT_PREPARED", "The seller has not prepared the buyer access yet."),
  accessInvalid: error("STREAM_ORDER_ACCESS_INVALID", "An access item is not a peaq.stream.buyer-access.v1 entry."),
  accessMismatch: error("STREAM_ORDER_ACCESS_MISMATCH", "The access items are not exactly the bought chunks for the order's buyer key."),
  proofRequired: error("STREAM_PAYMENT_PROOF_REQUIRED", "An on-chain payment proof is required."),
  payerRequired: error("STREAM_PAYER_REQUIRED", "The stream order names no payer address, so no transfer can pay it."),
  txAlreadyUsed: error("PAYMENT_TX_ALREADY_USED", "This transaction already paid another payment."),
  sessionNotFound: error("STREAM_DELIVERY_SESSION_NOT_FOUND", "The delivery session was not found."),
  sessionStateInvalid: error("STREAM_DELIVERY_SESSION_STATE_INVALID", "The delivery session is not in a state that allows this."),
  deliveryNotReady: error("STREAM_DELIVERY_NOT_READY", "The delivery is not ready yet."),
  deliveryFailed: error("STREAM_DELIVERY_FAILED", "The seller reported the delivery as failed."),
} as const;
