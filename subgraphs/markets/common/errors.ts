/**
 * The markets subgraph's error codes (document 3); messages are fixed per code. Statuses and envelopes are the REST
 * shim's business (rest-shim/errors/markets.ts, docs/markets-errors.md).
 */
import { DomainError } from "../../shared/errors.js";

const error = (code: string, message: string) => () => new DomainError(code, message);

export const MarketsErrors = {
  storeUnavailable: error("SERVICE_UNAVAILABLE", "The service is unavailable; retry."),
  validation: error("VALIDATION_ERROR", "The request is not valid."),
  notFound: error("NOT_FOUND", "Not found."),
  // Global rule 1 (common/machine.guard.ts).
  machineNotActive: error("MACHINE_NOT_ACTIVE", "The machine is not active."),
  machineNotActivated: error("MACHINE_NOT_ACTIVATED", "The machine is not activated."),
  // Machine identity (document 3, Authentication 1).
  identityProofRequired: error("MACHINE_IDENTITY_PROOF_REQUIRED", "A machine identity proof is required."),
  identityProofInvalid: error("MACHINE_IDENTITY_PROOF_INVALID", "The machine identity proof is invalid."),
  identityProofExpired: error("MACHINE_IDENTITY_PROOF_EXPIRED", "The machine identity proof expired; request a new challenge."),
  identityExists: error("MACHINE_IDENTITY_EXISTS", "A machine with this identity already exists."),
  identityImmutable: error("MACHINE_IDENTITY_IMMUTABLE", "The machine identity cannot be changed."),
  identityUnavailable: error("SERVICE_IDENTITY_UNAVAILABLE", "The machine identity could not be resolved; retry."),
  // Machine-side agents.
  agentAuthRequired: error("AGENT_AUTH_REQUIRED", "Agent credentials are required."),
  agentAuthInvalid: error("AGENT_AUTH_INVALID", "The agent credentials are invalid."),
  agentPairingInactive: error("AGENT_PAIRING_INACTIVE", "The agent is not active."),
  agentPolicyDenied: error("AGENT_POLICY_DENIED", "The agent may not report this provider."),
  // Agent pairings (Authentication 2, 3, 5).
  agentAuthExpired: error("AGENT_AUTH_EXPIRED", "The agent credentials expired."),
  agentPairingRequired: error("AGENT_PAIRING_REQUIRED", "An active agent pairing is required."),
  pairingProofRequired: error("AGENT_PAIRING_PROOF_REQUIRED", "A pairing proof is required."),
  pairingProofInvalid: error("AGENT_PAIRING_PROOF_INVALID", "The pairing proof is invalid."),
  pairingProofExpired: error("AGENT_PAIRING_PROOF_EXPIRED", "The pairing proof expired."),
  pairingUnavailable: error("AGENT_PAIRING_UNAVAILABLE", "Agent pairing is unavailable; retry."),
  delegationDenied: error("AGENT_POLICY_DENIED", "The delegation policy denies this action."),
  agentSpendLimitExceeded: error("AGENT_SPEND_LIMIT_EXCEEDED", "The spend limit of the delegation policy is exceeded."),
  agentDailyLimitExceeded: error("AGENT_DAILY_LIMIT_EXCEEDED", "The daily limit of the delegation policy is exceeded."),
  // Market orders and payments.
  orderClosed: error("ORDER_CLOSED", "The order is closed."),
  orderStateInvalid: error("ORDER_STATE_INVALID", "The order is not in a state that allows this."),
  railNotSupported: error("VALIDATION_ERROR", "The payment rail is not supported yet."),
  // Tasks.
  routeRequired: error("ROUTE_REQUIRED", "The task has no resolved route."),
  taskStateInvalid: error("TASK_STATE_INVALID", "The task is not in a state that allows this."),
  runtimeEndpointRequired: error("RUNTIME_ENDPOINT_REQUIRED", "The machine has no live runtime endpoint for the route's provider."),
  quoteExpired: error("QUOTE_EXPIRED", "The quote expired; search again."),
  // Machine policies (policies/policy.rules.ts, policies/policy.enforcement.ts).
  policyRulesInvalid: error("POLICY_RULES_INVALID", "The policy rules do not fit the policy kind."),
  machinePolicyDenied: error("MACHINE_POLICY_DENIED", "A policy of the machine denies this action."),
  machineSpendLimitExceeded: error("MACHINE_SPEND_LIMIT_EXCEEDED", "The spend limit of a machine policy is exceeded."),
  machineDailyLimitExceeded: error("MACHINE_DAILY_LIMIT_EXCEEDED", "The daily limit of a machine policy is exceeded."),
} as const;
