/**
 * Pairing an AI agent with a machine (docs/markets-orders.md "Pairing"): the agent signs a pairing challenge, the
 * machine (its session) creates the pairing with the agent's proof and a delegation policy; the answer carries the
 * agent's pairing token. Rotating: the agent signs a fresh challenge and opens a new session of the same pairing;
 * the previous token stops working.
 */
import type { Signer } from "ethers";
import { ok, type MarketsClient } from "../clients.js";
import { FlowError } from "../errors.js";
import { report, type OnProgress } from "./progress.js";

export interface AgentPairingRequest {
  machineId: string;
  /** The agent's key: its address is the pairing's agentAddress and the payer of its orders. */
  agent: Signer;
  agentProvider?: string;
  agentRole?: string;
  delegationPolicy?: Record<string, unknown>;
  onProgress?: OnProgress;
}

async function agentProof(markets: MarketsClient, machineId: string, agent: Signer, agentProvider: string, agentRole: string) {
  const agentAddress = await agent.getAddress();
  const challenge = (
    await ok(markets.api.POST("/api/v1/machines/{machineId}/agent-pairings/challenges", { params: { path: { machineId } }, body: { agentAddress, agentProvider, agentRole } }))
  ).item;
  return { agentAddress, agentProof: { challengeId: challenge.challengeId, signature: await agent.signMessage(challenge.message) } };
}

/** `machine` carries the machine session. Answers the pairing and a markets client that carries its token. */
export async function pairAgent(machine: MarketsClient, request: AgentPairingRequest) {
  const { machineId, agent, agentProvider = "sdk", agentRole = "machine-market-buyer", delegationPolicy = {} } = request;
  const { agentAddress, agentProof: proof } = await agentProof(machine, machineId, agent, agentProvider, agentRole);
  report(request.onProgress, "agent-signed", { agentAddress });
  const pairing = (
    await ok(
      machine.api.POST("/api/v1/machines/{machineId}/agent-pairings", {
        params: { path: { machineId } },
        body: { agentAddress, agentProvider, agentRole, delegationPolicy, agentProof: proof },
      }),
    )
  ).item;
  report(request.onProgress, "paired", { pairingId: pairing.id });
  return { pairing, agentClient: agentClientOf(machine, pairing.pairingToken) };
}

/** A new session of the pairing, proved by the agent's key: answers it and a client with the new token. */
export async function rotateAgentSession(markets: MarketsClient, machineId: string, pairingId: string, agent: Signer, onProgress?: OnProgress) {
  const { agentProof: proof } = await agentProof(markets, machineId, agent, "sdk", "machine-market-buyer");
  const session = (
    await ok(
      markets.api.POST("/api/v1/machines/{machineId}/agent-pairings/{pairingId}/sessions", { params: { path: { machineId, pairingId } }, body: { agentProof: proof } }),
    )
  ).item;
  report(onProgress, "rotated", { pairingId });
  return { session, agentClient: agentClientOf(markets, session.pairingToken) };
}

/** A client with the agent's pairing token only (no machine session: the agent is not the machine). */
function agentClientOf(markets: MarketsClient, pairingToken: string | null | undefined): MarketsClient {
  if (!pairingToken) throw new FlowError("PAIRING_TOKEN_MISSING", "the platform answered no pairing token");
  return markets.with({ pairingToken, machineSession: undefined, machineAgent: undefined });
}
