/**
 * The stream purchase flow (public notes 3.4; docs/stream-marketplace.md "Purchase flow"): payment rails, delivery
 * transports, a machine's delivery capabilities, purchases, their payment intent and proof, the p2p delivery
 * descriptor, purchase events, the seller's access preparation and the handoff check of its delivery server.
 *
 * Buyer credential: the pairing token (`x-agent-pairing-token`, or `Authorization: Bearer`, as market writes).
 * Seller credential: `x-machine-agent-id` + `x-machine-agent-token`, or `agentId` / `agentToken` in the JSON body
 * (headers win). Bodies are JSON objects (64 KiB at most), passed to the services, which check their members.
 */
import type { IncomingHttpHeaders } from "node:http";
import { RouteInputError } from "../../../json-body.js";
import { fieldOf, type RouteDefinition, type RouteOutcome } from "../../../route-definition.js";
import { bodyObject, itemOf, marketsRoute, op, withJsonBodyLimit } from "../http.js";
import { PREPARE_ACCESS_BODY_LIMIT } from "./order.routes.js";
import { paymentRailResults, purchaseResults } from "./purchase.docs.js";
import { pairingTokenOf } from "../orders/order.routes.js";

const J = "JSONObject";
/** A purchase, members in the REST item's order (`delivery`, `paymentIntent` and `payment` follow the rail/transport). */
const PURCHASE = `id status resource { type listingId selection { chunkIds } } machineId
  buyer { id publicKey { type publicKeyHex } deliveryCapabilities { transportId version features } } price { amount currency }
  delivery { mode transportId version protocols encoding features peer { machineId addresses peerId } } failure { code message }
  rail paymentIntent payment paidAt completedAt createdAt updatedAt`;
/** GET of one purchase: the purchase and its payment deadline. */
const PURCHASE_WITH_DUE = `${PURCHASE} paymentDueAt`;
const RAIL_TOKEN = "token { address decimals symbol }";
/** The delivery side's answers, members in the services' order. */
const CAPABILITIES = `created item { machineId agentId
  capabilities { transportId version features protocols encoding params { addresses peerId } } resourceTypes expiresAt updatedAt }`;
const ACCESS = "access { schemaVersion chunkId buyer { recipientId recipientType algorithm publicKeyHex wrappedKeyHex } }";
const DELIVERY = `purchaseId status delivery { sessionId status mode transportId version protocols encoding features
  peer { machineId addresses peerId } handoff { token expiresAt } chunkIds } ${ACCESS}`;
const EVENT = "id purchaseId type actor { type id } data purchaseStatus createdAt";
const PREPARED = `item { ${PURCHASE} } ${ACCESS} deliverySession { id status }`;
const GRANT = "purchaseId sessionId machineId buyerId buyerPublicKeyHex chunkIds transportId expiresAt purchaseStatus";
const RAILS = `... on TransferPaymentRail { type chains { chain chainId ${RAIL_TOKEN} payTo confirmations } ${RAIL_TOKEN} payTo proof }
    ... on X402PaymentRail { type x402Version scheme network asset payTo extra { name version } }`;
export const STREAM_PURCHASE_OPERATIONS = {
  paymentRails: op("PaymentRails", `query PaymentRails { paymentRails { ${RAILS} } }`),
  deliveryTransports: op("DeliveryTransports", `query DeliveryTransports { deliveryTransports { mode transportId protocols encodings addressFormat features } }`),
  putDeliveryCapabilities: op(
    "PutDeliveryCapabilities",
    `mutation PutDeliveryCapabilities($machineId: String!, $agentId: String, $agentToken: String, $input: ${J}!) {
  putDeliveryCapabilities(machineId: $machineId, agentId: $agentId, agentToken: $agentToken, input: $input) { ${CAPABILITIES} }
}`,
  ),
  createPurchase: op(
    "CreatePurchase",
    `mutation CreatePurchase($pairingToken: String, $input: ${J}!) { createPurchase(pairingToken: $pairingToken, input: $input) { ${PURCHASE} } }`,
  ),
  purchase: op(
    "Purchase",
    `query Purchase($purchaseId: String!, $pairingToken: String, $agentId: String, $agentToken: String) {
  purchase(purchaseId: $purchaseId, pairingToken: $pairingToken, agentId: $agentId, agentToken: $agentToken) { ${PURCHASE_WITH_DUE} }
}`,
  ),
  createPurchasePaymentIntent: op(
    "CreatePurchasePaymentIntent",
    `mutation CreatePurchasePaymentIntent($pairingToken: String, $purchaseId: String!, $input: ${J}) {
  createPurchasePaymentIntent(pairingToken: $pairingToken, purchaseId: $purchaseId, input: $input) { ${PURCHASE} }
}`,
  ),
  submitPurchasePaymentProof: op(
    "SubmitPurchasePaymentProof",
    `mutation SubmitPurchasePaymentProof($pairingToken: String, $purchaseId: String!, $input: ${J}) {
  submitPurchasePaymentProof(pairingToken: $pairingToken, purchaseId: $purchaseId, input: $input) { ${PURCHASE} }
}`,
  ),
  getPurchaseDelivery: op(
    "GetPurchaseDelivery",
    `mutation GetPurchaseDelivery($pairingToken: String, $purchaseId: String!) {
  getPurchaseDelivery(pairingToken: $pairingToken, purchaseId: $purchaseId) { ${DELIVERY} }
}`,
  ),
  createPurchaseEvent: op(
    "CreatePurchaseEvent",
    `mutation CreatePurchaseEvent($purchaseId: String!, $input: ${J}!, $pairingToken: String, $agentId: String, $agentToken: String) {
  createPurchaseEvent(purchaseId: $purchaseId, input: $input, pairingToken: $pairingToken, agentId: $agentId, agentToken: $agentToken) { ${EVENT} }
}`,
  ),
  preparePurchaseAccess: op(
    "PreparePurchaseAccess",
    `mutation PreparePurchaseAccess($purchaseId: String!, $items: [${J}!]!, $agentId: String, $agentToken: String) {
  preparePurchaseAccess(purchaseId: $purchaseId, items: $items, agentId: $agentId, agentToken: $agentToken) { ${PREPARED} }
}`,
  ),
  verifyPurchaseHandoff: op(
    "VerifyPurchaseHandoff",
    `mutation VerifyPurchaseHandoff($machineId: String!, $handoffToken: String!, $agentId: String, $agentToken: String) {
  verifyPurchaseHandoff(machineId: $machineId, handoffToken: $handoffToken, agentId: $agentId, agentToken: $agentToken) { ${GRANT} }
}`,
  ),
} as const;
const OPS = STREAM_PURCHASE_OPERATIONS;

const invalid = () => new RouteInputError("VALIDATION_ERROR");
const json = (value: unknown) => Buffer.from(JSON.stringify(value), "utf8");

function single(headers: Readonly<IncomingHttpHeaders>, name: string): string | null {
  const value = headers[name];
  if (Array.isArray(value)) throw new RouteInputError("AGENT_AUTH_INVALID");
  return value ?? null;
}

/** Machine-agent credentials: headers, else `agentId` / `agentToken` strings of the body. */
export function machineAgentOf(headers: Readonly<IncomingHttpHeaders>, body?: Record<string, unknown>): { agentId: string | null; agentToken: string | null } {
  const fromBody = (name: string) => {
    const value = body?.[name];
    if (value === undefined || value === null) return null;
    if (typeof value !== "string") throw invalid();
    return value;
  };
  return {
    agentId: single(headers, "x-machine-agent-id") ?? fromBody("agentId"),
    agentToken: single(headers, "x-machine-agent-token") ?? fromBody("agentToken"),
  };
}

/** `{ items: data[field] }` (no cursor: short fixed lists). */
const itemsOf = (field: string) => (data: Record<string, unknown>): RouteOutcome => ({ status: 200, body: json({ items: fieldOf(data, field) }) });
/** The result object as it is (un-enveloped), with `status`. */
const bare = (field: string, status = 200) => (data: Record<string, unknown>): RouteOutcome => ({ status, body: json(fieldOf(data, field)) });

const purchase = (suffix = "") => `/purchases/:purchaseId${suffix}`;
const NONE = { kind: "none" } as const;
const MACHINE_SAMPLE = { capabilities: [{ transportId: "tcp", version: "1", params: { addresses: ["127.0.0.1:4001"] } }] };

export const STREAM_PURCHASE_ROUTES: readonly RouteDefinition[] = [
  marketsRoute({ caller: { kind: "public", reason: "a read" }, method: "GET", path: "/payment-rails", operation: OPS.paymentRails, machineRule: NONE, variables: () => ({}), respond: itemsOf("paymentRails"), documentedResults: paymentRailResults }),
  marketsRoute({ caller: { kind: "public", reason: "a read" },
    method: "GET",
    path: "/delivery-transports",
    operation: OPS.deliveryTransports,
    machineRule: NONE,
    variables: () => ({}),
    respond: itemsOf("deliveryTransports"),
  }),
  marketsRoute({ caller: { kind: "machine-agent" },
    method: "PUT",
    path: "/machines/:machineId/delivery-capabilities",
    body: true,
    operation: OPS.putDeliveryCapabilities,
    // The agent is authenticated before rule 1 (stream/seller/agent.auth.ts): the guard test sends valid credentials.
    machineRule: { kind: "guarded", machineIn: "path", sample: { body: MACHINE_SAMPLE } },
    variables: ({ params, headers, body }) => {
      const source = bodyObject(body);
      const { agentId: _id, agentToken: _token, ...input } = source;
      return { machineId: params.machineId, ...machineAgentOf(headers, source), input };
    },
    respond: (data) => {
      const result = fieldOf(data, "putDeliveryCapabilities");
      return { status: result.created ? 201 : 200, body: json({ item: result.item }) };
    },
  }),
  marketsRoute({ caller: { kind: "pairing" },
    method: "POST",
    path: "/purchases",
    body: true,
    operation: OPS.createPurchase,
    // The listing names the seller machine; the service applies rule 1 to it.
    machineRule: NONE,
    variables: ({ headers, body }) => ({ pairingToken: pairingTokenOf(headers), input: bodyObject(body) }),
    respond: itemOf("createPurchase", 201),
    documentedResults: purchaseResults("createPurchase"),
  }),
  marketsRoute({ caller: { kind: "pairing-or-machine-agent" },
    method: "GET",
    path: purchase(),
    operation: OPS.purchase,
    machineRule: NONE,
    variables: ({ params, headers }) => ({ purchaseId: params.purchaseId, pairingToken: pairingTokenOf(headers), ...machineAgentOf(headers) }),
    respond: itemOf("purchase", 200),
    documentedResults: purchaseResults("purchase", true),
  }),
  marketsRoute({ caller: { kind: "pairing" },
    method: "POST",
    path: purchase("/payment-intent"),
    body: true,
    operation: OPS.createPurchasePaymentIntent,
    machineRule: NONE,
    variables: ({ params, headers, body }) => ({ pairingToken: pairingTokenOf(headers), purchaseId: params.purchaseId, input: bodyObject(body, true) }),
    respond: itemOf("createPurchasePaymentIntent", 200),
    documentedResults: purchaseResults("createPurchasePaymentIntent"),
  }),
  marketsRoute({ caller: { kind: "pairing" },
    method: "POST",
    path: purchase("/payment-proof"),
    body: true,
    operation: OPS.submitPurchasePaymentProof,
    machineRule: NONE,
    variables: ({ params, headers, body }) => ({ pairingToken: pairingTokenOf(headers), purchaseId: params.purchaseId, input: bodyObject(body, true) }),
    respond: itemOf("submitPurchasePaymentProof", 200),
    documentedResults: purchaseResults("submitPurchasePaymentProof"),
  }),
  marketsRoute({ caller: { kind: "pairing" },
    method: "GET",
    path: purchase("/delivery"),
    operation: OPS.getPurchaseDelivery,
    machineRule: NONE,
    variables: ({ params, headers }) => ({ pairingToken: pairingTokenOf(headers), purchaseId: params.purchaseId }),
    respond: bare("getPurchaseDelivery"),
  }),
  marketsRoute({ caller: { kind: "pairing-or-machine-agent" },
    method: "POST",
    path: purchase("/events"),
    body: true,
    operation: OPS.createPurchaseEvent,
    machineRule: NONE,
    variables: ({ params, headers, body }) => {
      const source = bodyObject(body);
      const { agentId: _id, agentToken: _token, ...input } = source;
      return { purchaseId: params.purchaseId, input, pairingToken: pairingTokenOf(headers), ...machineAgentOf(headers, source) };
    },
    respond: itemOf("createPurchaseEvent", 201),
  }),
  // Up to 10,000 buyer-access entries in one call, like the order flow's prepare-access.
  withJsonBodyLimit(marketsRoute({ caller: { kind: "machine-agent" },
    method: "POST",
    path: purchase("/prepare-access"),
    body: true,
    operation: OPS.preparePurchaseAccess,
    machineRule: NONE,
    variables: ({ params, headers, body }) => {
      const source = bodyObject(body);
      if (!Array.isArray(source.items) || source.items.length > 10_000) throw invalid();
      if (!source.items.every((i) => i !== null && typeof i === "object" && !Array.isArray(i))) throw new RouteInputError("PURCHASE_ACCESS_MISMATCH");
      return { purchaseId: params.purchaseId, items: source.items, ...machineAgentOf(headers, source) };
    },
    respond: bare("preparePurchaseAccess"),
  }), PREPARE_ACCESS_BODY_LIMIT),
  marketsRoute({ caller: { kind: "machine-agent" },
    method: "POST",
    path: "/stream/delivery-sessions/handoff/verify",
    body: true,
    operation: OPS.verifyPurchaseHandoff,
    machineRule: { kind: "guarded", machineIn: "body", sample: { body: { machineId: "{machineId}", handoffToken: "shof_sample" } } },
    variables: ({ headers, body }) => {
      const source = bodyObject(body);
      if (typeof source.machineId !== "string" || typeof source.handoffToken !== "string") throw invalid();
      return { machineId: source.machineId, handoffToken: source.handoffToken, ...machineAgentOf(headers, source) };
    },
    respond: itemOf("verifyPurchaseHandoff"),
  }),
];
