/**
 * Builds the purchase flow's services (issue 10, part p): delivery capabilities, purchases with their rails, the
 * delivery descriptor and handoff, and purchase events. Wired into the markets subgraph by index.ts.
 */
import type { Clock } from "../shared/clock.js";
import type { PairingService } from "./pairing.service.js";
import type { PaymentChain } from "./payments/index.js";
import type { MarketsStore } from "./store.js";
import { DeliveryCapabilityService } from "./stream-delivery-capability.service.js";
import { PurchaseDeliveryService } from "./stream-purchase-delivery.service.js";
import { PurchaseEventService } from "./stream-purchase-event.service.js";
import { PurchaseRails } from "./stream-purchase.rails.js";
import { StreamPurchaseService } from "./stream-purchase.service.js";

export interface StreamPurchaseServices {
  rails: PurchaseRails;
  capabilities: DeliveryCapabilityService;
  purchases: StreamPurchaseService;
  delivery: PurchaseDeliveryService;
  events: PurchaseEventService;
}

export function buildStreamPurchaseServices(store: MarketsStore, pairings: PairingService, chain: PaymentChain, resourceBase: string, clock: Clock): StreamPurchaseServices {
  const rails = new PurchaseRails(chain, resourceBase, () => Math.floor(clock.now() / 1000));
  const purchases = new StreamPurchaseService(store, pairings, rails, clock);
  return {
    rails,
    capabilities: new DeliveryCapabilityService(store, clock),
    purchases,
    delivery: new PurchaseDeliveryService(purchases),
    events: new PurchaseEventService(purchases),
  };
}
