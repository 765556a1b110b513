/**
 * The seams of the stream order flow to the seller side: machine-agent authentication of stream
 * routes (stream/seller/agent.auth.ts) and the bearer delivery token of chunk downloads (stream/seller/delivery.token.ts).
 */
import type { MarketsTx } from "../../common/audit.repository.js";

/** The machine agent's credentials: headers x-machine-agent-id / x-machine-agent-token, or agentId / agentToken in a body. */
export interface AgentCredentials {
  agentId?: string | null;
  agentToken?: string | null;
}

/**
 * Authenticates the machine agent of `machineId` inside the caller's transaction, or throws AGENT_AUTH_REQUIRED,
 * AGENT_AUTH_INVALID or AGENT_PAIRING_INACTIVE.
 */
export type StreamAgentAuth = (tx: MarketsTx, machineId: string, credentials: AgentCredentials) => Promise<{ agentId: string }>;

/** Issues the short-lived bearer token of `GET /stream/chunks/:chunkId/data`, scoped to an order's buyer and chunks. */
export type DeliveryTokenIssuer = (scope: { orderId: string; buyerId: string; chunkIds: string[] }) => Promise<{ token: string; expiresAt: string }>;
