import { Arg, FieldResolver, Int, Mutation, Query, Resolver, Root } from "type-graphql";
import { MachineAgentPage } from "./machine-agent.type.js";
import { RuntimeEndpointPage } from "./runtime-endpoint.type.js";
import type { MarketsDeps } from "../deps.js";
import { MACHINE_SESSION_ARG } from "./identity/machine-session.type.js";
import {
  CreateMarketMachineInput,
  MachineIdentityChallenge,
  MarketMachine,
  MarketMachinePage,
  UpdateMarketMachineInput,
} from "./market-machine.type.js";

@Resolver(() => MarketMachine)
export class MarketMachineResolver {
  constructor(private readonly deps: MarketsDeps) {}

  @Mutation(() => MachineIdentityChallenge, {
    description: "POST /machine-identity/challenges: a short-lived challenge for a controller of `identityRef` to sign.",
  })
  createMachineIdentityChallenge(@Arg("identityRef", () => String) identityRef: string): Promise<MachineIdentityChallenge> {
    return this.deps.identityChallenges.create(identityRef);
  }

  @Query(() => MarketMachinePage, { description: "GET /machines: records with a stored identity proof (not re-checked)." })
  marketMachines(
    @Arg("limit", () => Int, { nullable: true, description: "1..500, default 100." }) limit: number | null,
    @Arg("cursor", () => String, { nullable: true }) cursor: string | null,
  ): Promise<MarketMachinePage> {
    return this.deps.marketMachines.list(limit, cursor);
  }

  @Query(() => MarketMachine, { description: "GET /machines/{machineId}: re-verifies the stored proof (per block)." })
  marketMachine(@Arg("id", () => String) id: string): Promise<MarketMachine> {
    return this.deps.marketMachines.read(id);
  }

  @Mutation(() => MarketMachine, { description: "POST /machines." })
  createMarketMachine(@Arg("input", () => CreateMarketMachineInput) input: CreateMarketMachineInput): Promise<MarketMachine> {
    return this.deps.marketMachines.create(input);
  }

  @Mutation(() => MarketMachine, {
    description: "PATCH /machines/{machineId}: with the machine's session, or a new identityProof signed by a controller.",
  })
  async updateMarketMachine(
    @Arg("id", () => String) id: string,
    @Arg("input", () => UpdateMarketMachineInput) input: UpdateMarketMachineInput,
    @Arg("machineSession", () => String, MACHINE_SESSION_ARG) machineSession: string | null,
  ): Promise<MarketMachine> {
    // A fresh controller proof is itself the machine's authority (the service verifies it before any change).
    if (input.identityProof == null || machineSession != null) await this.deps.machineSessions.authorize(machineSession, id);
    return this.deps.marketMachines.update(id, input);
  }

  @FieldResolver(() => RuntimeEndpointPage, { description: "The machine's runtime endpoints (first page of `limit`)." })
  runtimeEndpoints(
    @Root() machine: MarketMachine,
    @Arg("limit", () => Int, { nullable: true }) limit: number | null,
    @Arg("cursor", () => String, { nullable: true }) cursor: string | null,
  ): Promise<RuntimeEndpointPage> {
    return this.deps.runtimeEndpoints.list(machine.id, limit, cursor, false);
  }

  @FieldResolver(() => MachineAgentPage, { description: "The machine's runtime agents." })
  agents(
    @Root() machine: MarketMachine,
    @Arg("limit", () => Int, { nullable: true }) limit: number | null,
    @Arg("cursor", () => String, { nullable: true }) cursor: string | null,
  ): Promise<MachineAgentPage> {
    return this.deps.machineAgents.list(machine.id, limit, cursor, false);
  }
}
