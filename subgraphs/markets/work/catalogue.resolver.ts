import { Arg, Int, Mutation, Query, Resolver } from "type-graphql";
import type { MarketsDeps } from "../deps.js";
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
    @Arg("limit", () => Int, { nullable: true }) limit: number | null,
    @Arg("cursor", () => String, { nullable: true }) cursor: string | null,
  ): Promise<MarketServicePage> {
    return this.deps.catalogue.servicePage({ skillKey, serviceType, executionMode, providerKey }, { limit, cursor });
  }

  @Query(() => MarketService, { description: "GET /market/services/:serviceId" })
  marketService(@Arg("serviceId", () => String) serviceId: string): Promise<MarketService> {
    return this.deps.catalogue.service(serviceId);
  }

  @Mutation(() => MarketSearch, { description: "POST /market/search: ranked quotes with a short TTL." })
  searchMarket(@Arg("input", () => MarketSearchInput) input: MarketSearchInput): Promise<MarketSearch> {
    return this.deps.catalogue.search({
      ...input,
      budgetAmount: input.budget?.amount ?? null,
      budgetCurrency: input.budget?.currency ?? null,
    });
  }
}
