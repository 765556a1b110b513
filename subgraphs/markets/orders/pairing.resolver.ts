import { Arg, Int, Mutation, Query, Resolver } from "type-graphql";
import type { MarketsDeps } from "../deps.js";
import {
  AgentPairing,
  AgentPairingChallenge,
  AgentPairingChallengeInput,
  AgentPairingPage,
  AgentProofInput,
  CreateAgentPairingInput,
  UpdateAgentPairingInput,
} from "./pairing.type.js";
import { MACHINE_SESSION_ARG } from "../machines/identity/machine-session.type.js";

const S = () => String;

@Resolver(() => AgentPairing)
export class AgentPairingResolver {
  constructor(private readonly deps: MarketsDeps) {}

  @Query(() => AgentPairingPage, { description: "GET /machines/:machineId/agent-pairings" })
  agentPairings(
    @Arg("machineId", S) machineId: string,
    @Arg("limit", () => Int, { nullable: true }) limit: number | null,
    @Arg("cursor", () => String, { nullable: true }) cursor: string | null,
  ) {
    return this.deps.pairings.list(machineId, limit, cursor);
  }

  @Mutation(() => AgentPairingChallenge, { description: "POST /machines/:machineId/agent-pairings/challenges" })
  createAgentPairingChallenge(@Arg("machineId", S) machineId: string, @Arg("input", () => AgentPairingChallengeInput) input: AgentPairingChallengeInput) {
    return this.deps.pairings.challenge(machineId, input);
  }

  @Mutation(() => AgentPairing, { description: "POST /machines/:machineId/agent-pairings: the pairing with its pairingToken (shown once)." })
  async createAgentPairing(@Arg("machineId", S) machineId: string, @Arg("input", () => CreateAgentPairingInput) input: CreateAgentPairingInput, @Arg("machineSession", () => String, MACHINE_SESSION_ARG) machineSession: string | null) {
    await this.deps.machineSessions.authorize(machineSession, machineId);
    return this.deps.pairings.create(machineId, input);
  }

  @Mutation(() => AgentPairing, { description: "POST /machines/:machineId/agent-pairings/:pairingId/sessions: a new pairingToken." })
  createAgentPairingSession(
    @Arg("machineId", S) machineId: string,
    @Arg("pairingId", S) pairingId: string,
    @Arg("agentProof", () => AgentProofInput, { nullable: true }) agentProof: AgentProofInput | null,
  ) {
    return this.deps.pairings.rotate(machineId, pairingId, agentProof);
  }

  @Mutation(() => AgentPairing, { description: "PATCH /machines/:machineId/agent-pairings/:pairingId" })
  async updateAgentPairing(@Arg("machineId", S) machineId: string, @Arg("pairingId", S) pairingId: string, @Arg("input", () => UpdateAgentPairingInput) input: UpdateAgentPairingInput, @Arg("machineSession", () => String, MACHINE_SESSION_ARG) machineSession: string | null) {
    await this.deps.machineSessions.authorize(machineSession, machineId);
    return this.deps.pairings.update(machineId, pairingId, input);
  }

  @Mutation(() => AgentPairing, { description: "DELETE /machines/:machineId/agent-pairings/:pairingId: revoked." })
  async revokeAgentPairing(@Arg("machineId", S) machineId: string, @Arg("pairingId", S) pairingId: string, @Arg("machineSession", () => String, MACHINE_SESSION_ARG) machineSession: string | null) {
    await this.deps.machineSessions.authorize(machineSession, machineId);
    return this.deps.pairings.revoke(machineId, pairingId);
  }
}
