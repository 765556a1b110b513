/**
 * Builds the purchase flow's services: delivery capabilities, purchases with their rails, the delivery descriptor and
 * handoff, and purchase events. Wired into the markets subgraph by its index.ts.
 */
import type { Clock } from "../../../shared/clock.js";
import type { PairingService } from "../../orders/pairing.service.js";
import type { PaymentChain } from "../../orders/payments/index.js";
import type { MarketsStore } from "../../common/store.js";
import { DeliveryCapabilityService } from "./delivery-capability.service.js";
import { PurchaseDeliveryService } from "./purchase-delivery.service.js";
import { PurchaseEventService } from "./purchase-event.service.js";
import { PurchaseRails } from "./purchase.rails.js";
import { StreamPurchaseService } from "./purchase.service.js";
import { StreamPurchaseResolver } from "./purchase.resolver.js";

export const STREAM_PURCHASE_RESOLVERS = [StreamPurchaseResolver] as const;

export interface StreamPurchaseServices {
  rails: PurchaseRails;
  capabilities: DeliveryCapabilityService;
  purchases: StreamPurchaseService;
  delivery: PurchaseDeliveryService;
  events: PurchaseEventService;
}

export function buildStreamPurchaseServices(
  store: MarketsStore,
  pairings: PairingService,
  chain: PaymentChain,
  resourceBase: string,
  clock: Clock,
  paymentTtlSeconds: number,
): StreamPurchaseServices {
  const rails = new PurchaseRails(chain, resourceBase, () => Math.floor(clock.now() / 1000));
  const purchases = new StreamPurchaseService(store, pairings, rails, clock, paymentTtlSeconds);
  return {
    rails,
    capabilities: new DeliveryCapabilityService(store, clock),
    purchases,
    delivery: new PurchaseDeliveryService(purchases),
    events: new PurchaseEventService(purchases),
  };
}
