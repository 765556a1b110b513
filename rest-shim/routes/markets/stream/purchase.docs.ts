/**
 * Sample results of the purchase operations for the OpenAPI document. The operations answer a typed `Purchase`, but its
 * `delivery`, `paymentIntent` and `payment` members are JSONObject (their members follow the rail/transport), so the
 * selection cannot tell their shape; these samples are built by the same `purchaseView` from sample rows, so the
 * documented `item` has the members the API writes. GET of one purchase adds its `paymentDueAt`.
 * Two rows: one with every nullable member set (paid, delivered over tcp), one with them null (just created).
 */
import type { StreamPurchase } from "../../../../subgraphs/shared/db/generated/client.js";
import { purchaseView } from "../../../../subgraphs/markets/stream/purchases/purchase.repository.js";

const at = new Date("2026-01-01T00:00:00.000Z");
const created: StreamPurchase = {
  id: "pur_sample",
  listingId: "lst_sample",
  machineId: "mach_sample",
  agentPairingId: "pair_sample",
  payerAddress: `0x${"11".repeat(20)}`,
  buyerId: "buyer-sample",
  buyerPublicKeyHex: "00".repeat(32),
  buyerCapabilities: [{ transportId: "tcp", version: "1", features: ["resume"] }],
  chunkIds: [`sha256:${"00".repeat(32)}`],
  status: "payment_pending",
  amount: "1.00",
  currency: "USD",
  rail: null,
  paymentIntent: null,
  paymentProof: null,
  paymentTxHash: null,
  delivery: null,
  paidAt: null,
  completedAt: null,
  createdAt: at,
  updatedAt: at,
};
const paid: StreamPurchase = {
  ...created,
  status: "completed",
  rail: "transfer",
  // Free-form by the rail (transfer or x402) and the transport: documented as objects of any members.
  paymentIntent: {},
  paymentProof: {},
  paymentTxHash: `0x${"00".repeat(32)}`,
  delivery: {},
  paidAt: at,
  completedAt: at,
};
const failed: StreamPurchase = { ...created, status: "failed", delivery: { failure: { code: "DELIVERY_TRANSPORT_UNAVAILABLE" } } };

/** Sample `data` for an operation whose root field answers a purchase view (`withDue`: with its `paymentDueAt`). */
export const purchaseResults = (field: string, withDue = false) =>
  [paid, created, failed].map((row) => ({ [field]: withDue ? { ...purchaseView(row), paymentDueAt: at.toISOString() } : purchaseView(row) }));

/**
 * Sample `data` of paymentRails: the operation answers the `PaymentRail` union, whose members the selection's sample
 * data cannot tell apart, so the documented items are one rail of each type as the rails service builds them.
 */
const token = { address: `0x${"22".repeat(20)}`, decimals: 6, symbol: "USD" };
const payTo = `0x${"33".repeat(20)}`;
export const paymentRailResults = [
  {
    paymentRails: [
      { type: "transfer", chains: [{ chain: "peaq", chainId: "3338", token, payTo, confirmations: 1 }], token, payTo, proof: "transactionHash" },
      { type: "x402", x402Version: 1, scheme: "exact", network: "peaq", asset: token.address, payTo, extra: { name: "USD Coin", version: "2" } },
    ],
  },
];
