/**
 * Document 3 (machine markets and the stream marketplace, under /api/v1 on the markets listener):
 * `{"error":{"code":"...","message":"..."}}` (public notes 2.1 suggest `{error: {code, message, details?}}`).
 *
 * Statuses the spec and notes give are kept exactly: AGENT_PAIRING_REQUIRED and OPEN_MARKET_ORDERS 409, and the
 * payment-proof codes PAYMENT_TRANSFER_NOT_FOUND 400, PAYMENT_TX_FAILED 402, PAYMENT_NOT_MINED 409,
 * PAYMENT_RPC_ERROR 502. The others follow the rule of the notes' gap list (docs/markets-errors.md): validation 400,
 * missing or bad credentials and proofs 401, policy and delegation limits 403, missing record 404, exists, immutable
 * and state conflicts 409, upstream failures 502/503.
 */
import { defineErrorTable } from "./table.js";

export const MARKETS_ERRORS = defineErrorTable({
  family: "markets",
  headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" },
  envelope: (code, message, details) => ({ error: details === undefined ? { code, message } : { code, message, details } }),
  internalCode: "INTERNAL_ERROR",
  entries: {
    VALIDATION_ERROR: { status: 400, message: "The request is not valid." },
    PAYMENT_RPC_REQUIRED: { status: 400, message: "An RPC payment check needs a configured RPC for this chain." },
    PAYMENT_TRANSFER_NOT_FOUND: { status: 400, message: "The transaction has no matching transfer." },
    PAYMENT_AUTHORIZATION_INVALID: { status: 400, message: "The payment authorization is invalid." },
    PAYMENT_AUTHORIZATION_EXPIRED: { status: 400, message: "The payment authorization is outside its validity window." },
    AUTH_REQUIRED: { status: 401, message: "An API key is required." },
    MACHINE_IDENTITY_PROOF_REQUIRED: { status: 401, message: "A machine identity proof is required." },
    MACHINE_IDENTITY_PROOF_INVALID: { status: 401, message: "The machine identity proof is invalid." },
    MACHINE_IDENTITY_PROOF_EXPIRED: { status: 401, message: "The machine identity proof expired; request a new challenge." },
    AGENT_AUTH_REQUIRED: { status: 401, message: "Agent credentials are required." },
    AGENT_AUTH_INVALID: { status: 401, message: "The agent credentials are invalid." },
    AGENT_AUTH_EXPIRED: { status: 401, message: "The agent credentials expired." },
    AGENT_PAIRING_PROOF_REQUIRED: { status: 401, message: "A pairing proof is required." },
    AGENT_PAIRING_PROOF_INVALID: { status: 401, message: "The pairing proof is invalid." },
    AGENT_PAIRING_PROOF_EXPIRED: { status: 401, message: "The pairing proof expired." },
    PAYMENT_TX_FAILED: { status: 402, message: "The payment transaction failed." },
    PAYMENT_INSUFFICIENT_FUNDS: { status: 402, message: "The payer's balance does not cover the payment." },
    AGENT_POLICY_DENIED: { status: 403, message: "The delegation policy denies this action." },
    AGENT_SPEND_LIMIT_EXCEEDED: { status: 403, message: "The spend limit of the delegation policy is exceeded." },
    AGENT_DAILY_LIMIT_EXCEEDED: { status: 403, message: "The daily limit of the delegation policy is exceeded." },
    NOT_FOUND: { status: 404, message: "Not found." },
    METHOD_NOT_ALLOWED: { status: 405, message: "Method not allowed on this route." },
    MACHINE_NOT_ACTIVE: { status: 409, message: "The machine is not active." },
    MACHINE_NOT_ACTIVATED: { status: 409, message: "The machine is not activated." },
    MACHINE_IDENTITY_EXISTS: { status: 409, message: "A machine with this identity already exists." },
    MACHINE_IDENTITY_IMMUTABLE: { status: 409, message: "The machine identity cannot be changed." },
    AGENT_PAIRING_INACTIVE: { status: 409, message: "The agent pairing is not active." },
    AGENT_PAIRING_REQUIRED: { status: 409, message: "An active agent pairing is required." },
    OPEN_MARKET_ORDERS: {
      status: 409,
      message: "The pairing has open market orders.",
      // `details.orderIds`: the open orders' server IDs (`ord_…`), nothing a client sent.
      detailsFrom: (extensions) => {
        const ids = extensions.orderIds;
        return Array.isArray(ids) && ids.every((id) => typeof id === "string" && /^ord_[a-z2-7]{16}$/.test(id)) ? { orderIds: ids } : undefined;
      },
    },
    ORDER_STATE_INVALID: { status: 409, message: "The order is not in a state that allows this." },
    ROUTE_REQUIRED: { status: 409, message: "The task has no resolved route." },
    QUOTE_EXPIRED: { status: 409, message: "The quote expired; search again." },
    TASK_STATE_INVALID: { status: 409, message: "The task is not in a state that allows this." },
    RUNTIME_ENDPOINT_REQUIRED: { status: 409, message: "The machine has no live runtime endpoint for the route's provider." },
    ORDER_CLOSED: { status: 409, message: "The order is closed." },
    PAYMENT_NOT_MINED: { status: 409, message: "The payment transaction is not mined yet." },
    PAYMENT_TX_ALREADY_USED: { status: 409, message: "This transaction already paid another payment." },
    PAYMENT_AUTHORIZATION_USED: { status: 409, message: "The payment authorization was already used." },
    PAYMENT_ESCROW_NOT_LOCKED: { status: 409, message: "The escrow of this order is not locked." },
    PAYMENT_ESCROW_MISMATCH: { status: 409, message: "The escrow of this order holds a different payment." },
    PAYLOAD_TOO_LARGE: { status: 413, message: "The request body is too large." },
    RATE_LIMITED: { status: 429, message: "Too many requests; retry later." },
    INTERNAL_ERROR: { status: 500, message: "Internal server error." },
    PAYMENT_RPC_ERROR: { status: 502, message: "The payment RPC could not be read." },
    PAYMENT_RAIL_UNAVAILABLE: { status: 503, message: "This payment rail is not configured on this server." },
    AGENT_PAIRING_UNAVAILABLE: { status: 503, message: "Agent pairing is unavailable; retry." },
    SERVICE_IDENTITY_UNAVAILABLE: { status: 503, message: "The machine identity could not be resolved; retry." },
    SERVICE_UNAVAILABLE: { status: 503, message: "The service is unavailable; retry." },
    // ---- Stream marketplace: purchases (issue 10, part p; docs/markets-errors.md "Stream marketplace") ----
    PURCHASE_CHUNKS_INVALID: { status: 400, message: "The selected chunks are not all part of the listing." },
    PURCHASE_RAIL_INVALID: { status: 400, message: "The payment rail does not match the purchase's payment intent." },
    PURCHASE_ACCESS_MISMATCH: { status: 400, message: "The access items must be exactly the bought chunks, each to the purchase's buyer key." },
    DELIVERY_CAPABILITIES_INVALID: { status: 400, message: "The delivery capabilities are not valid." },
    STREAM_HANDOFF_INVALID: { status: 401, message: "The delivery handoff token is not valid." },
    STREAM_HANDOFF_EXPIRED: { status: 401, message: "The delivery handoff token expired; get the delivery again." },
    PURCHASE_STATE_INVALID: { status: 409, message: "The purchase is not in a state that allows this." },
    PURCHASE_LISTING_INACTIVE: { status: 409, message: "The listing is not active." },
  },
});
