/** The named GraphQL operations behind the agent pairing, market order and payment routes (rest-shim/routes/markets/orders/order.routes.ts). */
import { op } from "../http.js";

const POLICY = "allowedSkillKeys deniedSkillKeys allowedServiceIds deniedServiceIds perTransactionLimit dailySpendLimit currency";
const PAIRING = `id machineId status agentAddress agentDid agentProvider agentRole description
  verification { method signerAddress verifiedAt challengeExpiresAt } delegationPolicy { ${POLICY} }
  delegationPolicyHash hasAuthToken tokenLastFour sessionId sessionTokenId sessionIssuedAt sessionExpiresAt createdAt updatedAt`;
const ORDER = `id machineId agentPairingId searchId quoteId serviceId skillKey providerKey serviceType operation executionMode
  integrationStatus status executingDeadline input budget payment serviceSnapshot spend { amount currency } taskId routeId runId outcomeId handoff
  errorMessage resolution createdAt updatedAt`;
const PAYMENT = `id orderId machineId rail status required amount currency chainId token payee payer amountRaw txHash proofMode
  escrowRef details createdAt updatedAt`;
const ROUTE = "id machineId taskId serviceId skillKey providerKey executionMode operation score createdAt";
const TASK = `id machineId skillKey operation input status executingDeadline candidates { serviceId providerKey executionMode operation score reasons }
  routeId route { ${ROUTE} } createdAt updatedAt`;
const RUN = "id machineId taskId routeId providerKey executionMode status httpStatus errorReason startedAt finishedAt";
const OUTCOME = "id machineId taskId runId kind result createdAt";

export const ORDER_OPERATIONS = {
  agentPairings: op(
    "AgentPairings",
    `query AgentPairings($machineId: String!, $limit: Int, $cursor: String) {
  agentPairings(machineId: $machineId, limit: $limit, cursor: $cursor) { items { ${PAIRING} } nextCursor }
}`,
  ),
  createAgentPairingChallenge: op(
    "CreateAgentPairingChallenge",
    `mutation CreateAgentPairingChallenge($machineId: String!, $input: AgentPairingChallengeInput!) {
  createAgentPairingChallenge(machineId: $machineId, input: $input) { challengeId machineId agentAddress agentDid message expiresAt verificationMethod }
}`,
  ),
  createAgentPairing: op(
    "CreateAgentPairing",
    `mutation CreateAgentPairing($machineSession: String, $machineId: String!, $input: CreateAgentPairingInput!) {
  createAgentPairing(machineSession: $machineSession, machineId: $machineId, input: $input) { ${PAIRING} pairingToken }
}`,
  ),
  createAgentPairingSession: op(
    "CreateAgentPairingSession",
    `mutation CreateAgentPairingSession($machineId: String!, $pairingId: String!, $agentProof: AgentProofInput) {
  createAgentPairingSession(machineId: $machineId, pairingId: $pairingId, agentProof: $agentProof) { ${PAIRING} pairingToken }
}`,
  ),
  updateAgentPairing: op(
    "UpdateAgentPairing",
    `mutation UpdateAgentPairing($machineSession: String, $machineId: String!, $pairingId: String!, $input: UpdateAgentPairingInput!) {
  updateAgentPairing(machineSession: $machineSession, machineId: $machineId, pairingId: $pairingId, input: $input) { ${PAIRING} }
}`,
  ),
  revokeAgentPairing: op(
    "RevokeAgentPairing",
    `mutation RevokeAgentPairing($machineSession: String, $machineId: String!, $pairingId: String!) { revokeAgentPairing(machineSession: $machineSession, machineId: $machineId, pairingId: $pairingId) { ${PAIRING} } }`,
  ),
  createMarketOrder: op(
    "CreateMarketOrder",
    `mutation CreateMarketOrder($pairingToken: String, $input: CreateMarketOrderInput!) {
  createMarketOrder(pairingToken: $pairingToken, input: $input) { ${ORDER} }
}`,
  ),
  marketOrder: op("MarketOrder", `query MarketOrder($orderId: String!) { marketOrder(orderId: $orderId) { ${ORDER} } }`),
  marketOrders: op(
    "MarketOrders",
    `query MarketOrders($machineId: String!, $limit: Int, $cursor: String) {
  marketOrders(machineId: $machineId, limit: $limit, cursor: $cursor) { items { ${ORDER} } nextCursor }
}`,
  ),
  marketOrderPayment: op("MarketOrderPayment", `query MarketOrderPayment($orderId: String!) { marketOrderPayment(orderId: $orderId) { ${PAYMENT} } }`),
  createPaymentIntent: op(
    "CreatePaymentIntent",
    `mutation CreatePaymentIntent($pairingToken: String, $orderId: String!, $rail: String, $details: JSONObject) {
  createPaymentIntent(pairingToken: $pairingToken, orderId: $orderId, rail: $rail, details: $details) { payment { ${PAYMENT} } orderStatus }
}`,
  ),
  executeMarketOrder: op(
    "ExecuteMarketOrder",
    `mutation ExecuteMarketOrder($pairingToken: String, $orderId: String!) {
  executeMarketOrder(pairingToken: $pairingToken, orderId: $orderId) {
    httpStatus order { ${ORDER} } task { ${TASK} } run { ${RUN} } outcome { ${OUTCOME} } handoff { label url notes }
  }
}`,
  ),
  confirmMarketOrder: op(
    "ConfirmMarketOrder",
    `mutation ConfirmMarketOrder($pairingToken: String, $orderId: String!) { confirmMarketOrder(pairingToken: $pairingToken, orderId: $orderId) { ${ORDER} } }`,
  ),
  disputeMarketOrder: op(
    "DisputeMarketOrder",
    `mutation DisputeMarketOrder($pairingToken: String, $orderId: String!, $reason: String) {
  disputeMarketOrder(pairingToken: $pairingToken, orderId: $orderId, reason: $reason) { ${ORDER} }
}`,
  ),
  cancelMarketOrder: op(
    "CancelMarketOrder",
    `mutation CancelMarketOrder($pairingToken: String, $orderId: String!) { cancelMarketOrder(pairingToken: $pairingToken, orderId: $orderId) { ${ORDER} } }`,
  ),
  resolveMarketOrderDispute: op(
    "ResolveMarketOrderDispute",
    `mutation ResolveMarketOrderDispute($operatorToken: String, $orderId: String!, $decision: String, $reason: String) {
  resolveMarketOrderDispute(operatorToken: $operatorToken, orderId: $orderId, decision: $decision, reason: $reason) { order { ${ORDER} } payment { ${PAYMENT} } }
}`,
  ),
} as const;
