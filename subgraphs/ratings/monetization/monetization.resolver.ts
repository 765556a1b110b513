import { Arg, Mutation, Query, Resolver } from "type-graphql";
import { DomainError } from "../../shared/errors.js";
import type { RatingsDeps } from "../deps.js";
import { DeploymentArg, deploymentArg } from "../graphql-args.js";
import { RatingsDeployment } from "../scoring/mcr.type.js";
import { MonetizationCompatibility, MonetizationDecisionInput, MonetizationState } from "./monetization.type.js";

@Resolver()
export class MonetizationResolver {
  constructor(private readonly deps: RatingsDeps) {}

  @Query(() => MonetizationState, { description: "GET /machine/{key}/monetization: key is a DID or a decimal machine ID." })
  machineMonetization(
    @Arg("key", () => String) key: string,
    @DeploymentArg() deployment: RatingsDeployment,
  ): Promise<MonetizationState> {
    return this.deps.monetization.state(deploymentArg(deployment), key);
  }

  @Mutation(() => MonetizationState, { description: "PUT /machine/{key}/monetization: a signed opt-in or opt-out." })
  setMachineMonetization(
    @Arg("key", () => String) key: string,
    @Arg("decision", () => MonetizationDecisionInput) decision: MonetizationDecisionInput,
    @DeploymentArg() deployment: RatingsDeployment,
  ): Promise<MonetizationState> {
    return this.deps.monetization.decide(deploymentArg(deployment), key, decision);
  }

  @Query(() => MonetizationCompatibility, {
    description: "GET /.well-known/<namespace>-monetization. With `wellKnownName`, NOT_FOUND unless it is that name.",
  })
  monetizationCompatibility(
    @DeploymentArg() deployment: RatingsDeployment,
    @Arg("wellKnownName", () => String, { nullable: true }) wellKnownName: string | null,
  ): MonetizationCompatibility {
    const signal = this.deps.monetization.compatibility(deploymentArg(deployment));
    if (wellKnownName !== null && wellKnownName !== undefined && wellKnownName !== signal.api) {
      throw new DomainError("NOT_FOUND", "No such well-known resource.");
    }
    return signal;
  }
}
