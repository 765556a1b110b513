import { Arg, Int, Mutation, Query, Resolver } from "type-graphql";
import type { MarketsDeps } from "../deps.js";
import { authorizeMachineOrAgent } from "../machines/identity/machine-session.resolver.js";
import { MACHINE_SESSION_ARG } from "../machines/identity/machine-session.type.js";
import { MarketSearch, MarketSearchInput, MarketService, MarketServicePage, MarketSkill } from "./catalogue.type.js";

@Resolver()
export class CatalogueResolver {
  constructor(private readonly deps: MarketsDeps) {}

  @Query(() => [MarketSkill], { description: "GET /market/skills" })
  marketSkills(): Promise<MarketSkill[]> {
    return this.deps.catalogue.skills();
  }

  @Query(() => MarketServicePage, { description: "GET /market/services" })
  marketServices(
    @Arg("skillKey", () => String, { nullable: true }) skillKey: string | null,
    @Arg("serviceType", () => String, { nullable: true }) serviceType: string | null,
    @Arg("executionMode", () => String, { nullable: true }) executionMode: string | null,
    @Arg("providerKey", () => String, { nullable: true }) providerKey: string | null,
    @Arg("from", () => String, { nullable: true, description: "ISO 8601 instant: stream listing entries whose listing's time range ends at or after it." }) from: string | null,
    @Arg("to", () => String, { nullable: true, description: "ISO 8601 instant: stream listing entries whose listing's time range starts at or before it." }) to: string | null,
    @Arg("limit", () => Int, { nullable: true }) limit: number | null,
    @Arg("cursor", () => String, { nullable: true }) cursor: string | null,
  ): Promise<MarketServicePage> {
    return this.deps.catalogue.servicePage({ skillKey, serviceType, executionMode, providerKey, from, to }, { limit, cursor });
  }

  @Query(() => MarketService, { description: "GET /market/services/:serviceId" })
  marketService(@Arg("serviceId", () => String) serviceId: string): Promise<MarketService> {
    return this.deps.catalogue.service(serviceId);
  }

  @Mutation(() => MarketSearch, { description: "POST /market/search: ranked quotes with a short TTL." })
  async searchMarket(
    @Arg("input", () => MarketSearchInput) input: MarketSearchInput,
    @Arg("machineSession", () => String, MACHINE_SESSION_ARG) machineSession: string | null,
    @Arg("pairingToken", () => String, { nullable: true, description: "Or the token of an agent paired with the machine." }) pairingToken: string | null,
  ): Promise<MarketSearch> {
    // The machine, or an agent paired with it, searches for it (a search writes its quotes).
    await authorizeMachineOrAgent(this.deps, machineSession, pairingToken, input.machineId);
    return this.deps.catalogue.search({
      ...input,
      budgetAmount: input.budget?.amount ?? null,
      budgetCurrency: input.budget?.currency ?? null,
    });
  }
}
