/**
 * Stream marketplace, order-based flow (public notes 3.2; docs/stream-marketplace.md): stream orders, their payment,
 * the seller's prepare-access and delivery sessions, and the buyer's delivery. Entries built with `marketsRoute`
 * (rest-shim/routes/markets/http.ts), so each inherits the markets hardening (64 KiB JSON bodies, rate limit, timeout, masked errors).
 *
 * The seller's machine agent sends `x-machine-agent-id` + `x-machine-agent-token`, or `agentId` / `agentToken` in the
 * JSON body (the ROS 2 agent's form); a header and a body member that differ, or a repeated header, is
 * AGENT_AUTH_INVALID. The buyer sends no credentials (notes 3.1): delivery answers only the order's `buyerId`.
 */
import type { IncomingHttpHeaders } from "node:http";
import { RouteInputError } from "../../../json-body.js";
import { fieldOf, type RouteDefinition, type RouteOutcome } from "../../../route-definition.js";
import { bodyObject, itemOf, marketsRoute, op, pageOf, pageQuery, pick, queryParam, withJsonBodyLimit } from "../http.js";

const ORDER = `id listingId machineId buyerId buyerPublicKeyHex chunkIds status price { amount currency } paymentReference paymentProof
  payerAddress paidAt accessPreparedAt deliveredAt createdAt updatedAt`;
/** GET of one order: the order and its payment deadline. */
const ORDER_WITH_DUE = `${ORDER} paymentDueAt`;
const SESSION = "id machineId orderId mode status deliveryUrl message buyerId buyerPublicKeyHex chunkIds createdAt updatedAt";
/** The buyer's delivery, members in the REST body's order; each mode's delivery carries only its own members. */
const DELIVERY = `orderId listingId machineId buyerId buyerPublicKeyHex status chunkIds access delivery {
    ... on StreamSellerDelivery { sessionId mode status deliveryUrl message }
    ... on StreamPlatformDelivery {
      sessionId mode status token tokenType tokenExpiresAt chunks { chunkId encryptedDataHash encryptedSize url reference }
    }
  }`;

export const STREAM_ORDER_OPERATIONS = {
  createStreamOrder: op(
    "CreateStreamOrder",
    `mutation CreateStreamOrder($input: CreateStreamOrderInput!) { createStreamOrder(input: $input) { ${ORDER} } }`,
  ),
  streamOrder: op("StreamOrder", `query StreamOrder($orderId: String!) { streamOrder(orderId: $orderId) { ${ORDER_WITH_DUE} } }`),
  machineStreamOrders: op(
    "MachineStreamOrders",
    `query MachineStreamOrders($agent: StreamAgentInput!, $limit: Int, $cursor: String) {
  machineStreamOrders(agent: $agent, limit: $limit, cursor: $cursor) { items { ${ORDER} } nextCursor }
}`,
  ),
  payStreamOrder: op(
    "PayStreamOrder",
    `mutation PayStreamOrder($orderId: String!, $paymentReference: String!, $proof: StreamPaymentProofInput) {
  payStreamOrder(orderId: $orderId, paymentReference: $paymentReference, proof: $proof) { ${ORDER} }
}`,
  ),
  prepareStreamOrderAccess: op(
    "PrepareStreamOrderAccess",
    `mutation PrepareStreamOrderAccess($orderId: String!, $agent: StreamAgentInput!, $items: [JSONObject!]!, $mode: String) {
  prepareStreamOrderAccess(orderId: $orderId, agent: $agent, items: $items, mode: $mode) { item { ${ORDER} } access deliverySession { ${SESSION} } }
}`,
  ),
  pollStreamDeliverySessions: op(
    "PollStreamDeliverySessions",
    `mutation PollStreamDeliverySessions($agent: StreamAgentInput!, $statuses: [String!], $limit: Int) {
  pollStreamDeliverySessions(agent: $agent, statuses: $statuses, limit: $limit) { items { ${SESSION} } nextCursor }
}`,
  ),
  updateStreamDeliverySession: op(
    "UpdateStreamDeliverySession",
    `mutation UpdateStreamDeliverySession($sessionId: String!, $agent: StreamAgentInput!, $status: String, $deliveryUrl: String, $message: String) {
  updateStreamDeliverySession(sessionId: $sessionId, agent: $agent, status: $status, deliveryUrl: $deliveryUrl, message: $message) { ${SESSION} }
}`,
  ),
  streamOrderDelivery: op(
    "StreamOrderDelivery",
    `mutation StreamOrderDelivery($orderId: String!, $buyerId: String!) {
  streamOrderDelivery(orderId: $orderId, buyerId: $buyerId) { ${DELIVERY} }
}`,
  ),
} as const;

const OPS = STREAM_ORDER_OPERATIONS;
const invalid = () => new RouteInputError("VALIDATION_ERROR");
const json = (value: unknown) => Buffer.from(JSON.stringify(value), "utf8");

/** One agent header: absent, or a single non-empty value (a repeated header is AGENT_AUTH_INVALID). */
function header(headers: Readonly<IncomingHttpHeaders>, name: string): string | undefined {
  const value = headers[name];
  if (value === undefined) return undefined;
  if (Array.isArray(value) || value.length === 0) throw new RouteInputError("AGENT_AUTH_INVALID");
  return value;
}

/** The machine agent's credentials from the headers and/or the body (both present and different: AGENT_AUTH_INVALID). */
export function agentCredentials(headers: Readonly<IncomingHttpHeaders>, body: Record<string, unknown> = {}): { agentId?: string; agentToken?: string } {
  const fromBody = pick(body, { agentId: "string?", agentToken: "string?" }) as { agentId?: string; agentToken?: string };
  const agentId = header(headers, "x-machine-agent-id");
  const agentToken = header(headers, "x-machine-agent-token");
  if (agentId !== undefined && fromBody.agentId !== undefined && agentId !== fromBody.agentId) throw new RouteInputError("AGENT_AUTH_INVALID");
  if (agentToken !== undefined && fromBody.agentToken !== undefined && agentToken !== fromBody.agentToken) throw new RouteInputError("AGENT_AUTH_INVALID");
  const id = agentId ?? fromBody.agentId;
  const token = agentToken ?? fromBody.agentToken;
  return { ...(id !== undefined ? { agentId: id } : {}), ...(token !== undefined ? { agentToken: token } : {}) };
}

/** `{ machineId, agentId?, agentToken? }` of a seller body. */
function sellerOf(headers: Readonly<IncomingHttpHeaders>, body: Record<string, unknown>) {
  const { machineId } = pick(body, { machineId: "string" });
  return { machineId, ...agentCredentials(headers, body) };
}

type Row = Record<string, unknown>;

/** A platform delivery's chunk as REST spells it: its `url` (platform storage) or its storage `reference`, never both. */
const deliveryChunkOut = ({ url, reference, ...chunk }: Row): Row => (url != null ? { ...chunk, url } : { ...chunk, reference });
/** The buyer's un-enveloped delivery as REST spells it: each chunk with its url or reference. */
export const deliveryOut = (body: Row): Row => {
  const delivery = body.delivery as Row;
  const chunks = delivery.chunks as Row[] | undefined;
  return { ...body, delivery: { ...delivery, ...(chunks ? { chunks: chunks.map(deliveryChunkOut) } : {}) } };
};

const ORDER_SAMPLE = { orderId: "sord_aaaaaaaaaaaaaaaa" };

/**
 * prepare-access carries one buyer-access entry (~420 bytes) per bought chunk, all in one call, so its body may be up
 * to 8 MiB (10,000 entries, the order's chunk limit, need ~4.2 MB) instead of the markets routes' 64 KiB; still bounded.
 */
export const PREPARE_ACCESS_BODY_LIMIT = 8 * 1024 * 1024;

export const STREAM_ORDER_ROUTES: readonly RouteDefinition[] = [
  marketsRoute({ caller: { kind: "public", reason: "the anonymous buyer's order grants nothing until it is paid" },
    method: "POST",
    path: "/stream/orders",
    body: true,
    operation: OPS.createStreamOrder,
    // The listing names the machine; the service applies rule 1 to it.
    machineRule: { kind: "none" },
    variables: ({ body }) => ({
      input: pick(bodyObject(body), { listingId: "string", buyerId: "string", buyerPublicKeyHex: "string", chunkIds: "string[]?", payerAddress: "string?" }),
    }),
    respond: itemOf("createStreamOrder", 201),
  }),
  marketsRoute({ caller: { kind: "public", reason: "a read" },
    method: "GET",
    path: "/stream/orders/:orderId",
    operation: OPS.streamOrder,
    machineRule: { kind: "none" },
    variables: ({ params }) => ({ orderId: params.orderId }),
    respond: itemOf("streamOrder", 200),
  }),
  marketsRoute({ caller: { kind: "machine-agent" },
    method: "GET",
    path: "/machines/:machineId/stream/orders",
    operation: OPS.machineStreamOrders,
    machineRule: { kind: "guarded", machineIn: "path", sample: {} },
    variables: ({ params, headers, query }) => ({ agent: { machineId: params.machineId, ...agentCredentials(headers) }, ...pageQuery(query) }),
    respond: pageOf("machineStreamOrders"),
  }),
  marketsRoute({ caller: { kind: "public", reason: "the anonymous buyer pays its own order; the payment is checked as documented" },
    method: "POST",
    path: "/stream/orders/:orderId/payment",
    body: true,
    operation: OPS.payStreamOrder,
    machineRule: { kind: "none" },
    variables: ({ params, body }) => {
      const source = bodyObject(body);
      const { paymentReference, proof } = pick(source, { paymentReference: "string", proof: "object?" });
      let checked: Record<string, unknown> | null = null;
      if (proof !== undefined) {
        const { chainId, txHash } = proof as Record<string, unknown>;
        const chain = typeof chainId === "number" && Number.isSafeInteger(chainId) && chainId > 0 ? String(chainId) : chainId;
        if (typeof chain !== "string" || typeof txHash !== "string") throw invalid();
        checked = { chainId: chain, txHash };
      }
      return { orderId: params.orderId, paymentReference, proof: checked };
    },
    respond: itemOf("payStreamOrder", 200),
  }),
  withJsonBodyLimit(marketsRoute({ caller: { kind: "machine-agent" },
    method: "POST",
    path: "/stream/orders/:orderId/prepare-access",
    body: true,
    operation: OPS.prepareStreamOrderAccess,
    machineRule: { kind: "guarded", machineIn: "body", sample: { params: ORDER_SAMPLE, body: { machineId: "{machineId}", items: [] } } },
    variables: ({ params, headers, body }) => {
      const source = bodyObject(body);
      const { items, delivery } = pick(source, { items: "object[]", delivery: "object?" });
      const { mode } = delivery === undefined ? { mode: undefined } : pick(delivery as Record<string, unknown>, { mode: "string?" });
      return { orderId: params.orderId, agent: sellerOf(headers, source), items, mode: mode ?? null };
    },
    respond: (data): RouteOutcome => {
      const result = fieldOf(data, "prepareStreamOrderAccess");
      return { status: 200, body: json({ item: result.item, access: result.access, deliverySession: result.deliverySession }) };
    },
  }), PREPARE_ACCESS_BODY_LIMIT),
  marketsRoute({ caller: { kind: "machine-agent" },
    method: "POST",
    path: "/stream/delivery-sessions/poll",
    body: true,
    operation: OPS.pollStreamDeliverySessions,
    machineRule: { kind: "guarded", machineIn: "body", sample: { body: { machineId: "{machineId}", statuses: ["requested"] } } },
    variables: ({ headers, body, query }) => {
      const source = bodyObject(body);
      const { statuses, limit } = pick(source, { statuses: "string[]?", limit: "integer?" });
      return { agent: sellerOf(headers, source), statuses: statuses ?? null, limit: limit ?? pageQuery(query).limit };
    },
    respond: pageOf("pollStreamDeliverySessions"),
  }),
  marketsRoute({ caller: { kind: "machine-agent" },
    method: "PATCH",
    path: "/stream/delivery-sessions/:sessionId",
    body: true,
    operation: OPS.updateStreamDeliverySession,
    machineRule: { kind: "guarded", machineIn: "body", sample: { params: { sessionId: "sdel_aaaaaaaaaaaaaaaa" }, body: { machineId: "{machineId}", status: "preparing" } } },
    variables: ({ params, headers, body }) => {
      const source = bodyObject(body);
      const fields = pick(source, { status: "string?", deliveryUrl: "string?", message: "string?" });
      return { sessionId: params.sessionId, agent: sellerOf(headers, source), status: null, deliveryUrl: null, message: null, ...fields };
    },
    respond: itemOf("updateStreamDeliverySession", 200),
  }),
  marketsRoute({ caller: { kind: "public", reason: "a read" },
    method: "GET",
    path: "/stream/orders/:orderId/delivery",
    operation: OPS.streamOrderDelivery,
    machineRule: { kind: "none" },
    variables: ({ params, query }) => {
      const buyerId = queryParam(query, "buyerId");
      if (buyerId === null) throw invalid();
      return { orderId: params.orderId, buyerId };
    },
    // Un-enveloped (notes 3.2): the body is the delivery itself.
    respond: (data): RouteOutcome => ({ status: 200, body: json(deliveryOut(fieldOf(data, "streamOrderDelivery"))) }),
  }),
];

