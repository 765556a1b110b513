import { Field, InputType, Int, ObjectType, registerEnumType } from "type-graphql";
import { RuntimeEndpoint, RuntimeEndpointInput } from "./runtime-endpoint.type.js";
import { DateTimeScalar } from "../../shared/date-time.scalar.js";

export enum MachineAgentStatus {
  ENROLLED = "ENROLLED",
  ACTIVE = "ACTIVE",
  REVOKED = "REVOKED",
}
registerEnumType(MachineAgentStatus, {
  name: "MachineAgentStatus",
  description: "ENROLLED until the first heartbeat, ACTIVE after one, REVOKED after revocation (final).",
});

@ObjectType({ description: "A machine-side runtime agent that reports endpoints with a lease." })
export class MachineAgent {
  @Field(() => String, { description: "`magt_…`." })
  id!: string;

  @Field(() => String, { description: "Market machine ID." })
  machineId!: string;

  @Field(() => String)
  label!: string;

  @Field(() => MachineAgentStatus)
  status!: MachineAgentStatus;

  @Field(() => [String], { description: "Provider keys (lowercase) this agent may report." })
  allowedProviderKeys!: string[];

  @Field(() => DateTimeScalar, { nullable: true })
  lastSeenAt!: string | null;

  @Field(() => DateTimeScalar, { nullable: true })
  revokedAt!: string | null;

  @Field(() => DateTimeScalar)
  createdAt!: string;

  @Field(() => DateTimeScalar)
  updatedAt!: string;
}

@ObjectType({ description: "An enrolment: the agent and its one-time agentToken (only its SHA-256 is stored)." })
export class MachineAgentEnrollment {
  @Field(() => MachineAgent)
  agent!: MachineAgent;

  @Field(() => String, { description: "Shown once; send it with every heartbeat." })
  agentToken!: string;
}

@ObjectType()
export class MachineAgentPage {
  @Field(() => [MachineAgent])
  items!: MachineAgent[];

  @Field(() => String, { nullable: true })
  nextCursor!: string | null;
}

@InputType({ description: "POST /machines/{machineId}/agents/enrollment." })
export class EnrollMachineAgentInput {
  @Field(() => String, { nullable: true, description: "Default `runtime agent`." })
  label?: string | null;

  @Field(() => [String], { description: "1..32 provider keys the agent may report (lowercased)." })
  allowedProviderKeys!: string[];
}

@InputType({ description: "One endpoint of a heartbeat: a runtime endpoint plus its provider key." })
export class HeartbeatEndpointInput extends RuntimeEndpointInput {
  @Field(() => String)
  providerKey!: string;
}

@InputType({ description: "POST /machine-agents/heartbeat (the credential travels separately)." })
export class HeartbeatInput {
  @Field(() => Int, { description: "1..MACHINE_AGENT_MAX_LEASE_SECONDS: leaseExpiresAt = now + leaseSeconds." })
  leaseSeconds!: number;

  @Field(() => [HeartbeatEndpointInput], { description: "1..MACHINE_AGENT_MAX_HEARTBEAT_ENDPOINTS endpoints." })
  endpoints!: HeartbeatEndpointInput[];
}

@ObjectType({ description: "A heartbeat's result: the agent (now ACTIVE) and the endpoints it renewed." })
export class HeartbeatResult {
  @Field(() => MachineAgent)
  agent!: MachineAgent;

  @Field(() => [RuntimeEndpoint])
  endpoints!: RuntimeEndpoint[];

  @Field(() => DateTimeScalar)
  leaseExpiresAt!: string;
}
