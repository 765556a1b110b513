import { Arg, Int, Mutation, Query, Resolver } from "type-graphql";
import type { MarketsDeps } from "../deps.js";
import { RuntimeEndpoint, RuntimeEndpointInput, RuntimeEndpointPage, RuntimeEndpointUpsert } from "./runtime-endpoint.type.js";
import { MACHINE_SESSION_ARG } from "./identity/machine-session.type.js";

@Resolver(() => RuntimeEndpoint)
export class RuntimeEndpointResolver {
  constructor(private readonly deps: MarketsDeps) {}

  @Query(() => RuntimeEndpointPage, { description: "GET /machines/{machineId}/runtime-endpoints." })
  runtimeEndpoints(
    @Arg("machineId", () => String) machineId: string,
    @Arg("limit", () => Int, { nullable: true }) limit: number | null,
    @Arg("cursor", () => String, { nullable: true }) cursor: string | null,
  ): Promise<RuntimeEndpointPage> {
    return this.deps.runtimeEndpoints.list(machineId, limit, cursor);
  }

  @Query(() => RuntimeEndpoint, { description: "GET /machines/{machineId}/runtime-endpoints/{providerKey}." })
  runtimeEndpoint(@Arg("machineId", () => String) machineId: string, @Arg("providerKey", () => String) providerKey: string): Promise<RuntimeEndpoint> {
    return this.deps.runtimeEndpoints.read(machineId, providerKey);
  }

  @Mutation(() => RuntimeEndpointUpsert, { description: "PUT /machines/{machineId}/runtime-endpoints/{providerKey}: source MANUAL." })
  async upsertRuntimeEndpoint(
    @Arg("machineId", () => String) machineId: string,
    @Arg("providerKey", () => String) providerKey: string,
    @Arg("input", () => RuntimeEndpointInput) input: RuntimeEndpointInput,
    @Arg("machineSession", () => String, MACHINE_SESSION_ARG) machineSession: string | null,
  ): Promise<RuntimeEndpointUpsert> {
    await this.deps.machineSessions.authorize(machineSession, machineId);
    return this.deps.runtimeEndpoints.upsert(machineId, providerKey, input);
  }

  @Mutation(() => Boolean, { description: "DELETE /machines/{machineId}/runtime-endpoints/{providerKey}: true, or NOT_FOUND." })
  async deleteRuntimeEndpoint(@Arg("machineId", () => String) machineId: string, @Arg("providerKey", () => String) providerKey: string, @Arg("machineSession", () => String, MACHINE_SESSION_ARG) machineSession: string | null): Promise<boolean> {
    await this.deps.machineSessions.authorize(machineSession, machineId);
    return this.deps.runtimeEndpoints.delete(machineId, providerKey);
  }
}
