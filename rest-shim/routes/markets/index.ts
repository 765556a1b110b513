/**
 * Document 3 (machine markets and the stream marketplace, under /api/v1 on the markets listener): the entries of
 * each resource family's file. Shared shapes (envelopes, list query, body readers) are in `rest-shim/routes/markets/http.ts`.
 */
import type { RouteDefinition } from "../../route-definition.js";
import { MACHINE_OPERATIONS, MACHINE_ROUTES } from "./machines/machine.routes.js";
import { RUNTIME_OPERATIONS, RUNTIME_ROUTES } from "./machines/runtime.routes.js";
import { WORK_OPERATIONS, WORK_ROUTES } from "./work/work.routes.js";
import { ORDER_OPERATIONS, ORDER_ROUTES } from "./orders/order.routes.js";
import { PAYMENT_OPERATIONS, PAYMENT_ROUTES } from "./orders/payment.routes.js";
import { STREAM_SELLER_OPERATIONS, STREAM_SELLER_ROUTES } from "./stream/seller.routes.js";
import { STREAM_ORDER_OPERATIONS, STREAM_ORDER_ROUTES } from "./stream/order.routes.js";
import { STREAM_PURCHASE_OPERATIONS, STREAM_PURCHASE_ROUTES } from "./stream/purchase.routes.js";

export const MARKETS_ROUTES: readonly RouteDefinition[] = [...MACHINE_ROUTES, ...RUNTIME_ROUTES, ...WORK_ROUTES, ...ORDER_ROUTES, ...PAYMENT_ROUTES,
  ...STREAM_SELLER_ROUTES, ...STREAM_ORDER_ROUTES, ...STREAM_PURCHASE_ROUTES];

export const MARKETS_OPERATIONS = { ...MACHINE_OPERATIONS, ...RUNTIME_OPERATIONS, ...WORK_OPERATIONS, ...ORDER_OPERATIONS, ...PAYMENT_OPERATIONS,
  ...STREAM_SELLER_OPERATIONS, ...STREAM_ORDER_OPERATIONS, ...STREAM_PURCHASE_OPERATIONS } as const;
