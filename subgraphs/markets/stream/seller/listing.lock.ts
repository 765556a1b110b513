/**
 * The listing as a stream order or purchase being created reads it: under a share lock (`SELECT … FOR SHARE`) held
 * until the creating transaction ends. Deactivation locks the row `FOR UPDATE` (listing.service.ts `setActive`), so the
 * two queue: a deactivation that commits first is seen (the creation answers STREAM_LISTING_INACTIVE or
 * PURCHASE_LISTING_INACTIVE), and one that comes later waits until the order or purchase has committed. No order or
 * purchase is ever created for a listing deactivated before it committed.
 */
import type { StreamListing } from "../../../shared/db/generated/client.js";
import type { MarketsTx } from "../../common/audit.repository.js";
import type { MarketsStore } from "../../common/store.js";

export async function readListingForSale(store: MarketsStore, tx: MarketsTx, listingId: string): Promise<StreamListing | null> {
  await tx.$queryRaw`SELECT 1 FROM stream_listing WHERE id = ${listingId} FOR SHARE`;
  const listing = await tx.streamListing.findUnique({ where: { id: listingId } });
  await store.afterListingRead?.(listingId);
  return listing;
}
