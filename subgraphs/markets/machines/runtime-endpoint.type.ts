import { Field, InputType, ObjectType, registerEnumType } from "type-graphql";
import { DateTimeScalar } from "../../shared/date-time.scalar.js";

export enum RuntimeEndpointSource {
  MANUAL = "MANUAL",
  AGENT = "AGENT",
}
registerEnumType(RuntimeEndpointSource, { name: "RuntimeEndpointSource", description: "MANUAL (PUT) or AGENT (heartbeat, with a lease)." });

export enum RuntimeAuthType {
  NONE = "NONE",
  API_KEY = "API_KEY",
  BEARER = "BEARER",
}
registerEnumType(RuntimeAuthType, { name: "RuntimeAuthType", description: "REST: none, api-key, bearer." });

export enum RuntimeNetworkScope {
  LOOPBACK = "LOOPBACK",
  LAN = "LAN",
  VPN = "VPN",
  PUBLIC = "PUBLIC",
}
registerEnumType(RuntimeNetworkScope, { name: "RuntimeNetworkScope" });

export enum RuntimeEndpointStatus {
  ACTIVE = "ACTIVE",
  DEGRADED = "DEGRADED",
  UNREACHABLE = "UNREACHABLE",
}
registerEnumType(RuntimeEndpointStatus, {
  name: "RuntimeEndpointStatus",
  description: "An agent-reported endpoint whose lease lapsed is served as UNREACHABLE until a heartbeat renews it.",
});

@ObjectType({ description: "A machine's runtime endpoint for one provider; the auth token is never echoed." })
export class RuntimeEndpoint {
  @Field(() => String, { description: "Market machine ID." })
  machineId!: string;

  @Field(() => String, { description: "Lowercased." })
  providerKey!: string;

  @Field(() => RuntimeEndpointSource)
  source!: RuntimeEndpointSource;

  @Field(() => String, { description: "Scheme, host and port only (path, query and fragment are stripped)." })
  endpointBaseUrl!: string;

  @Field(() => String)
  label!: string;

  @Field(() => RuntimeAuthType)
  authType!: RuntimeAuthType;

  @Field(() => Boolean)
  hasAuthToken!: boolean;

  @Field(() => String, { nullable: true })
  modelAlias!: string | null;

  @Field(() => RuntimeNetworkScope, { nullable: true })
  networkScope!: RuntimeNetworkScope | null;

  @Field(() => String)
  probePath!: string;

  @Field(() => RuntimeEndpointStatus)
  status!: RuntimeEndpointStatus;

  @Field(() => DateTimeScalar, { nullable: true, description: "ISO 8601; set for agent-reported endpoints." })
  leaseExpiresAt!: string | null;

  @Field(() => Boolean, { description: "False for an agent-reported endpoint whose lease lapsed." })
  live!: boolean;

  @Field(() => DateTimeScalar)
  createdAt!: string;

  @Field(() => DateTimeScalar)
  updatedAt!: string;
}

@ObjectType()
export class RuntimeEndpointPage {
  @Field(() => [RuntimeEndpoint])
  items!: RuntimeEndpoint[];

  @Field(() => String, { nullable: true })
  nextCursor!: string | null;
}

@ObjectType({ description: "An upsert's result: `created` tells a new endpoint (REST 201) from an update (200)." })
export class RuntimeEndpointUpsert {
  @Field(() => Boolean)
  created!: boolean;

  @Field(() => RuntimeEndpoint)
  endpoint!: RuntimeEndpoint;
}

@InputType({ description: "PUT /machines/{machineId}/runtime-endpoints/{providerKey} (public notes 2.4)." })
export class RuntimeEndpointInput {
  @Field(() => String, { description: "http or https URL; path, query and fragment are stripped." })
  endpointBaseUrl!: string;

  @Field(() => String, { nullable: true, description: "Default `<PROVIDERKEY> runtime`." })
  label?: string | null;

  @Field(() => RuntimeAuthType, { nullable: true, description: "Default BEARER with an authToken, else NONE." })
  authType?: RuntimeAuthType | null;

  @Field(() => String, { nullable: true, description: "Stored encrypted; never returned." })
  authToken?: string | null;

  @Field(() => String, { nullable: true })
  modelAlias?: string | null;

  @Field(() => RuntimeNetworkScope, { nullable: true })
  networkScope?: RuntimeNetworkScope | null;

  @Field(() => String, { nullable: true, description: "Default `/v1/models` for provider `qvac`, else `/health`." })
  probePath?: string | null;

  @Field(() => RuntimeEndpointStatus, { nullable: true, description: "Default ACTIVE." })
  status?: RuntimeEndpointStatus | null;

  @Field(() => String, { nullable: true, description: "ISO 8601 (manual endpoints rarely need one)." })
  leaseExpiresAt?: string | null;
}
