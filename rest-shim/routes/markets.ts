/**
 * Document 3 (machine markets and the stream marketplace, under /api/v1 on the markets listener): the entries of
 * each resource family's file. Shared shapes (envelopes, list query, body readers) are in `markets-http.ts`.
 */
import type { RouteDefinition } from "../route-definition.js";
import { MACHINE_OPERATIONS, MACHINE_ROUTES } from "./markets-machines.js";
import { RUNTIME_OPERATIONS, RUNTIME_ROUTES } from "./markets-runtime.js";
import { WORK_OPERATIONS, WORK_ROUTES } from "./markets-work.js";
import { ORDER_OPERATIONS, ORDER_ROUTES } from "./markets-orders.js";
import { PAYMENT_OPERATIONS, PAYMENT_ROUTES } from "./markets-payments.js";
import { STREAM_ORDER_OPERATIONS, STREAM_ORDER_ROUTES } from "./markets-stream-orders.js";
import { STREAM_PURCHASE_OPERATIONS, STREAM_PURCHASE_ROUTES } from "./markets-stream-purchases.js";
import { STREAM_SELLER_OPERATIONS, STREAM_SELLER_ROUTES } from "./markets-stream-seller.js";

export const MARKETS_ROUTES: readonly RouteDefinition[] = [...MACHINE_ROUTES, ...RUNTIME_ROUTES, ...WORK_ROUTES, ...ORDER_ROUTES, ...PAYMENT_ROUTES,
  ...STREAM_SELLER_ROUTES, ...STREAM_ORDER_ROUTES, ...STREAM_PURCHASE_ROUTES];

export const MARKETS_OPERATIONS = { ...MACHINE_OPERATIONS, ...RUNTIME_OPERATIONS, ...WORK_OPERATIONS, ...ORDER_OPERATIONS, ...PAYMENT_OPERATIONS,
  ...STREAM_SELLER_OPERATIONS, ...STREAM_ORDER_OPERATIONS, ...STREAM_PURCHASE_OPERATIONS } as const;
