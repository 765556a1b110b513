/**
 * Machine-agent authentication for the stream routes (docs/stream-marketplace.md "Auth"). The agent is the
 * machine agent (machines/machine-agent.service.ts): its enrolment token is stored only as a SHA-256 hash. The
 * credential is `x-machine-agent-id` + `x-machine-agent-token` (headers, mapped by the shim into `agentId` /
 * `agentToken` arguments) or `agentId` / `agentToken` in the JSON body.
 *
 * Order: global rule 1 on the machine first, as on every route naming a machine (NOT_FOUND / MACHINE_NOT_ACTIVATED /
 * MACHINE_NOT_ACTIVE; common/machine.guard.ts), then as the heartbeat: credential missing -> AGENT_AUTH_REQUIRED; malformed,
 * unknown, id/token mismatch or another machine's agent -> AGENT_AUTH_INVALID; revoked -> AGENT_PAIRING_INACTIVE.
 * Call it inside the transaction of the change it guards.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import type { MarketMachine, MarketMachineAgent } from "../../../shared/db/generated/client.js";
import type { MarketsTx } from "../../common/audit.repository.js";
import { MarketsErrors } from "../../common/errors.js";
import type { MarketsStore } from "../../common/store.js";

export const AGENT_ID = /^magt_[0-9a-f]{24}$/;
/** `mat_` + 32 random bytes in base64url (machines/machine-agent.service.ts). */
export const AGENT_TOKEN = /^mat_[A-Za-z0-9_-]{43}$/;

export interface AgentCredentials {
  agentId?: string | null;
  agentToken?: string | null;
}

export interface AuthenticatedAgent {
  agent: MarketMachineAgent;
  machine: MarketMachine;
}

const hashOf = (token: string) => createHash("sha256").update(token, "utf8").digest();

/**
 * Throws the documented code unless `credentials` name a live agent of `machineId` on an active machine. The
 * credential comes first: a caller without one learns nothing of the machine, not even its state (global rule 1).
 */
export async function authenticateStreamAgent(
  store: MarketsStore,
  tx: MarketsTx,
  machineId: string,
  credentials: AgentCredentials,
): Promise<AuthenticatedAgent> {
  const { agentId, agentToken } = credentials;
  if (agentId == null || agentToken == null || agentId === "" || agentToken === "") throw MarketsErrors.agentAuthRequired();
  if (!AGENT_ID.test(agentId) || !AGENT_TOKEN.test(agentToken)) throw MarketsErrors.agentAuthInvalid();
  const agent = await tx.marketMachineAgent.findUnique({ where: { id: agentId } });
  if (!agent || agent.machineId !== machineId) throw MarketsErrors.agentAuthInvalid();
  const stored = Buffer.from(agent.tokenHash);
  const given = hashOf(agentToken);
  if (stored.length !== given.length || !timingSafeEqual(stored, given)) throw MarketsErrors.agentAuthInvalid();
  if (agent.status === "revoked") throw MarketsErrors.agentPairingInactive();
  const machine = await store.requireActiveMachine(tx, machineId);
  return { agent, machine };
}

/** The credentials of a request: header values (when the shim passed them) win over body fields. */
export function agentCredentials(
  headers: AgentCredentials | null | undefined,
  body: AgentCredentials | null | undefined,
): AgentCredentials {
  return {
    agentId: headers?.agentId ?? body?.agentId ?? null,
    agentToken: headers?.agentToken ?? body?.agentToken ?? null,
  };
}
