/**
 * Error codes of the purchase flow (docs/stream-marketplace.md "Purchase flow"); statuses in
 * rest-shim/errors/markets.ts ("Stream marketplace: purchases") and docs/markets-errors.md.
 */
import { DomainError } from "../../../shared/errors.js";

const error = (code: string, message: string) => () => new DomainError(code, message);

export const PurchaseErrors = {
  stateInvalid: error("PURCHASE_STATE_INVALID", "The purchase is not in a state that allows this."),
  chunksInvalid: error("PURCHASE_CHUNKS_INVALID", "The selected chunks are not all part of the listing."),
  expired: error("PURCHASE_EXPIRED", "The purchase expired unpaid; create a new purchase."),
  listingInactive: error("PURCHASE_LISTING_INACTIVE", "The listing is not active."),
  railInvalid: error("PURCHASE_RAIL_INVALID", "The payment rail does not match the purchase's payment intent."),
  accessMismatch: error("PURCHASE_ACCESS_MISMATCH", "The access items must be exactly the bought chunks, each to the purchase's buyer key."),
  capabilitiesInvalid: error("DELIVERY_CAPABILITIES_INVALID", "The delivery capabilities are not valid."),
  handoffInvalid: error("STREAM_HANDOFF_INVALID", "The delivery handoff token is not valid."),
  handoffExpired: error("STREAM_HANDOFF_EXPIRED", "The delivery handoff token expired; get the delivery again."),
} as const;

/** The failure a purchase records when negotiation finds no transport (status `failed`, answered 201). */
export const NO_COMMON_TRANSPORT = "DELIVERY_NO_COMMON_TRANSPORT";
