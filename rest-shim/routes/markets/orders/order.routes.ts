/**
 * Document 3: agent pairings, market orders and their payments (public notes 2.3, 2.7). Entries built with
 * `marketsRoute` (rest-shim/routes/markets/http.ts); operations in rest-shim/routes/markets/orders/order.operations.ts.
 *
 * The pairing token of a market write travels in `x-agent-pairing-token` (the hosted API's header, notes 2.1) or as
 * `Authorization: Bearer <token>` (as the heartbeat accepts, Authentication 4). Both present and different, a
 * repeated header, or another Authorization scheme: AGENT_AUTH_INVALID. Neither: the subgraph answers
 * AGENT_AUTH_REQUIRED (after rule 1 on routes naming a machine). Tokens are never logged.
 */
import type { IncomingHttpHeaders } from "node:http";
import { RouteInputError } from "../../../json-body.js";
import type { RouteDefinition } from "../../../route-definition.js";
import { bodyObject, itemOf, marketsRoute, noContent, pageOf, pageQuery, pick, queryParam } from "../http.js";
import { ORDER_OPERATIONS as OPS } from "./order.operations.js";
import { fieldOf, type RouteOutcome } from "../../../route-definition.js";

export { ORDER_OPERATIONS } from "./order.operations.js";

const invalid = () => new RouteInputError("VALIDATION_ERROR");

/** The pairing token of a market write, or null when none was sent. */
export function pairingTokenOf(headers: Readonly<IncomingHttpHeaders>): string | null {
  const header = headers["x-agent-pairing-token"];
  if (Array.isArray(header)) throw new RouteInputError("AGENT_AUTH_INVALID");
  const authorization = headers.authorization;
  let bearer: string | undefined;
  if (authorization !== undefined) {
    const match = /^Bearer ([^\s]+)$/.exec(authorization);
    if (!match) throw new RouteInputError("AGENT_AUTH_INVALID");
    bearer = match[1];
  }
  if (header !== undefined && bearer !== undefined && header !== bearer) throw new RouteInputError("AGENT_AUTH_INVALID");
  const token = header ?? bearer;
  if (token === undefined) return null;
  if (token.length === 0) throw new RouteInputError("AGENT_AUTH_INVALID");
  return token;
}

const POLICY_SHAPE = {
  allowedSkillKeys: "string[]?",
  deniedSkillKeys: "string[]?",
  allowedServiceIds: "string[]?",
  deniedServiceIds: "string[]?",
  perTransactionLimit: "number?",
  dailySpendLimit: "number?",
  currency: "string?",
} as const;

function policyOf(source: Record<string, unknown>): Record<string, unknown> | undefined {
  const { delegationPolicy } = pick(source, { delegationPolicy: "object?" });
  return delegationPolicy === undefined ? undefined : pick(delegationPolicy as Record<string, unknown>, POLICY_SHAPE);
}

function proofOf(source: Record<string, unknown>): Record<string, unknown> | undefined {
  const { agentProof } = pick(source, { agentProof: "object?" });
  return agentProof === undefined ? undefined : pick(agentProof as Record<string, unknown>, { challengeId: "string", signature: "string" });
}

/** A pairing as the REST item: the GraphQL view without a null pairingToken. */
const pairingItem = (pairing: Record<string, unknown>) => {
  const { pairingToken, ...rest } = pairing;
  return pairingToken == null ? rest : { ...rest, pairingToken };
};

const json = (value: unknown) => Buffer.from(JSON.stringify(value), "utf8");

/** Order execute: the execution's status (the provider's; 202 for a handoff) with `{"item": {order, task, run, outcome, handoff}}`. */
const executionOf = (data: Record<string, unknown>): RouteOutcome => {
  const { httpStatus, ...item } = fieldOf(data, "executeMarketOrder");
  return { status: httpStatus, body: json({ item }) };
};

const ADDRESS_SAMPLE = "0x00000000000000000000000000000000000000a1";
const PAIRING = { pairingId: "pair_aaaaaaaaaaaaaaaa" };
const inPath = (sample: { params?: Record<string, string>; body?: unknown } = {}) => ({ kind: "guarded", machineIn: "path", sample }) as const;
const pairing = (suffix = "") => `/machines/:machineId/agent-pairings${suffix}`;
const order = (suffix = "") => `/market/orders/:orderId${suffix}`;

const pairingRoutes: RouteDefinition[] = [
  marketsRoute({ caller: { kind: "public", reason: "a read" },
    method: "GET",
    path: pairing(),
    operation: OPS.agentPairings,
    machineRule: inPath(),
    variables: ({ params, query }) => ({ machineId: params.machineId, ...pageQuery(query) }),
    respond: pageOf("agentPairings", pairingItem),
  }),
  marketsRoute({ caller: { kind: "public", reason: "a challenge grants nothing until the agent signs it" },
    method: "POST",
    path: pairing("/challenges"),
    body: true,
    operation: OPS.createAgentPairingChallenge,
    machineRule: inPath({ body: { agentAddress: ADDRESS_SAMPLE } }),
    variables: ({ params, body }) => ({
      machineId: params.machineId,
      input: pick(bodyObject(body), { agentAddress: "string", agentDid: "string?", agentProvider: "string?", agentRole: "string?" }),
    }),
    respond: itemOf("createAgentPairingChallenge", 201),
  }),
  marketsRoute({ caller: { kind: "machine" },
    method: "POST",
    path: pairing(),
    body: true,
    operation: OPS.createAgentPairing,
    machineRule: inPath({ body: { agentAddress: ADDRESS_SAMPLE } }),
    variables: ({ params, body }) => {
      const source = bodyObject(body);
      const input = pick(source, { agentAddress: "string", agentDid: "string?", agentProvider: "string?", agentRole: "string?", description: "string?" });
      return { machineId: params.machineId, input: { ...input, delegationPolicy: policyOf(source), agentProof: proofOf(source) } };
    },
    respond: itemOf("createAgentPairing", 201, pairingItem),
  }),
  marketsRoute({ caller: { kind: "agent-proof" },
    method: "POST",
    path: pairing("/:pairingId/sessions"),
    body: true,
    operation: OPS.createAgentPairingSession,
    machineRule: inPath({ params: PAIRING, body: {} }),
    variables: ({ params, body }) => ({ machineId: params.machineId, pairingId: params.pairingId, agentProof: proofOf(bodyObject(body, true)) }),
    respond: itemOf("createAgentPairingSession", 201, pairingItem),
  }),
  marketsRoute({ caller: { kind: "machine" },
    method: "PATCH",
    path: pairing("/:pairingId"),
    body: true,
    operation: OPS.updateAgentPairing,
    machineRule: inPath({ params: PAIRING, body: { status: "paused" } }),
    variables: ({ params, body }) => {
      const source = bodyObject(body);
      const input = pick(source, { status: "string?", description: "string?" });
      return { machineId: params.machineId, pairingId: params.pairingId, input: { ...input, delegationPolicy: policyOf(source) } };
    },
    respond: itemOf("updateAgentPairing", 200, pairingItem),
  }),
  marketsRoute({ caller: { kind: "machine" },
    method: "DELETE",
    path: pairing("/:pairingId"),
    operation: OPS.revokeAgentPairing,
    machineRule: inPath({ params: PAIRING }),
    variables: ({ params }) => ({ machineId: params.machineId, pairingId: params.pairingId }),
    respond: noContent,
  }),
];

const orderWrite = (suffix: string, operation: (typeof OPS)[keyof typeof OPS], field: string, extra?: (body: Buffer) => Record<string, unknown>) =>
  marketsRoute({ caller: { kind: "pairing" },
    method: "POST",
    path: order(suffix),
    body: extra !== undefined,
    operation,
    // The order names the machine; the service applies rule 1 to it.
    machineRule: { kind: "none" },
    variables: ({ params, headers, body }) => ({ pairingToken: pairingTokenOf(headers), orderId: params.orderId, ...(extra ? extra(body) : {}) }),
    respond: itemOf(field),
  });

const orderRoutes: RouteDefinition[] = [
  marketsRoute({ caller: { kind: "pairing" },
    method: "POST",
    path: "/market/orders",
    body: true,
    operation: OPS.createMarketOrder,
    machineRule: { kind: "guarded", machineIn: "body", sample: { body: { machineId: "{machineId}", searchId: "search_sample", quoteId: "quote_sample" } } },
    variables: ({ body, headers }) => {
      const source = bodyObject(body);
      const input = pick(source, { machineId: "string", searchId: "string", quoteId: "string", input: "object?", budget: "object?" });
      if (input.budget) input.budget = pick(input.budget as Record<string, unknown>, { amount: "string?", currency: "string?" });
      return { pairingToken: pairingTokenOf(headers), input };
    },
    respond: itemOf("createMarketOrder", 201),
  }),
  marketsRoute({ caller: { kind: "public", reason: "a read" },
    method: "GET",
    path: "/market/orders",
    operation: OPS.marketOrders,
    machineRule: { kind: "guarded", machineIn: "query", sample: { query: { machineId: "{machineId}" } } },
    variables: ({ query }) => {
      const machineId = queryParam(query, "machineId");
      if (machineId === null) throw invalid();
      return { machineId, ...pageQuery(query) };
    },
    respond: pageOf("marketOrders"),
  }),
  marketsRoute({ caller: { kind: "public", reason: "a read" },
    method: "GET",
    path: order(),
    operation: OPS.marketOrder,
    machineRule: { kind: "none" },
    variables: ({ params }) => ({ orderId: params.orderId }),
    respond: itemOf("marketOrder"),
  }),
  marketsRoute({ caller: { kind: "public", reason: "a read" },
    method: "GET",
    path: order("/payment"),
    operation: OPS.marketOrderPayment,
    machineRule: { kind: "none" },
    variables: ({ params }) => ({ orderId: params.orderId }),
    respond: itemOf("marketOrderPayment"),
  }),
  marketsRoute({ caller: { kind: "pairing" },
    method: "POST",
    path: order("/payment-intent"),
    body: true,
    operation: OPS.createPaymentIntent,
    machineRule: { kind: "none" },
    // `rail` (default: the order's defaultRail); every other member goes to the rail as its details.
    variables: ({ params, headers, body }) => {
      const source = bodyObject(body, true);
      const { rail } = pick(source, { rail: "string?" });
      const { rail: _rail, ...details } = source;
      return { pairingToken: pairingTokenOf(headers), orderId: params.orderId, rail: rail ?? null, details };
    },
    respond: itemOf("createPaymentIntent"),
  }),
  marketsRoute({ caller: { kind: "pairing" },
    method: "POST",
    path: order("/execute"),
    operation: OPS.executeMarketOrder,
    machineRule: { kind: "none" },
    // No body is read; whatever is sent is ignored.
    variables: ({ params, headers }) => ({ pairingToken: pairingTokenOf(headers), orderId: params.orderId }),
    respond: executionOf,
  }),
  orderWrite("/confirm", OPS.confirmMarketOrder, "confirmMarketOrder"),
  orderWrite("/dispute", OPS.disputeMarketOrder, "disputeMarketOrder", (body) => pick(bodyObject(body, true), { reason: "string?" })),
  orderWrite("/cancel", OPS.cancelMarketOrder, "cancelMarketOrder"),
  // The arbiter (docs/markets-orders.md, "Resolving a dispute"): the operator's token in Authorization: Bearer.
  marketsRoute({ caller: { kind: "operator" },
    method: "POST",
    path: order("/resolve"),
    body: true,
    operation: OPS.resolveMarketOrderDispute,
    // The order names the machine; rule 1 does not apply to the arbiter (funds must not stay locked).
    machineRule: { kind: "none" },
    variables: ({ params, body }) => ({ orderId: params.orderId, ...pick(bodyObject(body), { decision: "string?", reason: "string?" }) }),
    respond: itemOf("resolveMarketOrderDispute"),
  }),
];

export const ORDER_ROUTES: readonly RouteDefinition[] = [...pairingRoutes, ...orderRoutes];
