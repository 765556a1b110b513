import { Arg, Int, Mutation, Query, Resolver } from "type-graphql";
import type { MarketsDeps } from "../deps.js";
import type { PlainField } from "../../shared/federation.js";
import { EnrollMachineAgentInput, HeartbeatInput, HeartbeatResult, MachineAgent, MachineAgentEnrollment, MachineAgentPage } from "./machine-agent.type.js";
import { MACHINE_SESSION_ARG } from "./identity/machine-session.type.js";

@Resolver(() => MachineAgent)
export class MachineAgentResolver {
  constructor(private readonly deps: MarketsDeps) {}

  @Mutation(() => MachineAgentEnrollment, { description: "POST /machines/{machineId}/agents/enrollment: the agent and its one-time token." })
  async enrollMachineAgent(
    @Arg("machineId", () => String) machineId: string,
    @Arg("input", () => EnrollMachineAgentInput) input: EnrollMachineAgentInput,
    @Arg("machineSession", () => String, MACHINE_SESSION_ARG) machineSession: string | null,
  ): Promise<MachineAgentEnrollment> {
    await this.deps.machineSessions.authorize(machineSession, machineId);
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
  async revokeMachineAgent(@Arg("machineId", () => String) machineId: string, @Arg("agentId", () => String) agentId: string, @Arg("machineSession", () => String, MACHINE_SESSION_ARG) machineSession: string | null): Promise<MachineAgent> {
    await this.deps.machineSessions.authorize(machineSession, machineId);
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

/**
 * The heartbeat, the markets API's hottest write, is resolved on its coerced arguments as they are (federation.ts
 * PlainField): the service reads the input as data.
 */
export const MACHINE_AGENT_PLAIN_FIELDS: PlainField[] = [
  {
    type: "Mutation",
    field: "machineAgentHeartbeat",
    resolver: MachineAgentResolver,
    call: (resolver: MachineAgentResolver, args) => resolver.machineAgentHeartbeat(args.agentToken, args.input),
  },
];
