import { Arg, Int, Mutation, Query, Resolver } from "type-graphql";
import type { MarketsDeps } from "../deps.js";
import { EnrollMachineAgentInput, HeartbeatInput, HeartbeatResult, MachineAgent, MachineAgentEnrollment, MachineAgentPage } from "./machine-agent.type.js";

@Resolver(() => MachineAgent)
export class MachineAgentResolver {
  constructor(private readonly deps: MarketsDeps) {}

  @Mutation(() => MachineAgentEnrollment, { description: "POST /machines/{machineId}/agents/enrollment: the agent and its one-time token." })
  enrollMachineAgent(
    @Arg("machineId", () => String) machineId: string,
    @Arg("input", () => EnrollMachineAgentInput) input: EnrollMachineAgentInput,
  ): Promise<MachineAgentEnrollment> {
    return this.deps.machineAgents.enroll(machineId, input);
  }

  @Query(() => MachineAgentPage, { description: "GET /machines/{machineId}/agents." })
  machineAgents(
    @Arg("machineId", () => String) machineId: string,
    @Arg("limit", () => Int, { nullable: true }) limit: number | null,
    @Arg("cursor", () => String, { nullable: true }) cursor: string | null,
  ): Promise<MachineAgentPage> {
    return this.deps.machineAgents.list(machineId, limit, cursor);
  }

  @Mutation(() => MachineAgent, { description: "POST /machines/{machineId}/agents/{agentId}/revoke: final." })
  revokeMachineAgent(@Arg("machineId", () => String) machineId: string, @Arg("agentId", () => String) agentId: string): Promise<MachineAgent> {
    return this.deps.machineAgents.revoke(machineId, agentId);
  }

  @Mutation(() => HeartbeatResult, { description: "POST /machine-agents/heartbeat, authenticated by the agent's token." })
  machineAgentHeartbeat(
    @Arg("agentToken", () => String, { nullable: true }) agentToken: string | null,
    @Arg("input", () => HeartbeatInput) input: HeartbeatInput,
  ): Promise<HeartbeatResult> {
    return this.deps.machineAgents.heartbeat(agentToken, input);
  }
}
