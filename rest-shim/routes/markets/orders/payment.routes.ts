/**
 * Document 3: the chain rails' payment routes after the intent (public notes 2.7; docs/markets-payments.md). Each
 * maps one POST onto one mutation of orders/payments/settlement.resolver.ts; the pairing token travels as for every market
 * write (rest-shim/routes/markets/orders/order.routes.ts `pairingTokenOf`). Bodies are JSON objects (64 KiB at most) passed to the service, which
 * validates their members.
 */
import type { RouteDefinition } from "../../../route-definition.js";
import { bodyObject, itemOf, marketsRoute, op } from "../http.js";
import { pairingTokenOf } from "./order.routes.js";

const PAYMENT = `id orderId machineId rail status required amount currency chainId token payee payer amountRaw txHash proofMode
  escrowRef details createdAt updatedAt`;
const result = `payment { ${PAYMENT} } orderStatus`;

export const PAYMENT_OPERATIONS = {
  submitPaymentProof: op(
    "SubmitPaymentProof",
    `mutation SubmitPaymentProof($pairingToken: String, $orderId: String!, $details: JSONObject) {
  submitPaymentProof(pairingToken: $pairingToken, orderId: $orderId, details: $details) { ${result} }
}`,
  ),
  lockPaymentEscrow: op(
    "LockPaymentEscrow",
    `mutation LockPaymentEscrow($pairingToken: String, $orderId: String!, $details: JSONObject) {
  lockPaymentEscrow(pairingToken: $pairingToken, orderId: $orderId, details: $details) { ${result} }
}`,
  ),
  releasePayment: op(
    "ReleasePayment",
    `mutation ReleasePayment($pairingToken: String, $orderId: String!) { releasePayment(pairingToken: $pairingToken, orderId: $orderId) { ${result} } }`,
  ),
  refundPayment: op(
    "RefundPayment",
    `mutation RefundPayment($pairingToken: String, $orderId: String!) { refundPayment(pairingToken: $pairingToken, orderId: $orderId) { ${result} } }`,
  ),
} as const;

const write = (suffix: string, operation: (typeof PAYMENT_OPERATIONS)[keyof typeof PAYMENT_OPERATIONS], field: string, withBody: boolean) =>
  marketsRoute({ caller: { kind: "pairing" },
    method: "POST",
    path: `/market/orders/:orderId${suffix}`,
    body: withBody,
    operation,
    // The order names the machine; the service applies rule 1 to it.
    machineRule: { kind: "none" },
    variables: ({ params, headers, body }) => ({
      pairingToken: pairingTokenOf(headers),
      orderId: params.orderId,
      ...(withBody ? { details: bodyObject(body, true) } : {}),
    }),
    respond: itemOf(field),
  });

export const PAYMENT_ROUTES: readonly RouteDefinition[] = [
  write("/payment-proof", PAYMENT_OPERATIONS.submitPaymentProof, "submitPaymentProof", true),
  write("/payment/escrow-lock", PAYMENT_OPERATIONS.lockPaymentEscrow, "lockPaymentEscrow", true),
  write("/payment/release", PAYMENT_OPERATIONS.releasePayment, "releasePayment", false),
  write("/payment/refund", PAYMENT_OPERATIONS.refundPayment, "refundPayment", false),
];
