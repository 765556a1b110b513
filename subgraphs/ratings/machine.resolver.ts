/**
 * The ratings subgraph's fields on the federated `Machine` entity (keyed by decimal machine ID), so one query reads a
 * machine's verification, rating, profile, card, monetization and markets state. Each field is null when the chosen
 * deployment does not know the machine.
 */
import { FieldResolver, Resolver, Root } from "type-graphql";
import { DomainError } from "../shared/errors.js";
import { MachineCard } from "./card.type.js";
import type { RatingsDeps } from "./deps.js";
import { RatingsErrors } from "./errors.js";
import { DeploymentArg, deploymentArg, parseDecimalArg } from "./graphql-args.js";
import { RatingsMachine } from "./machine.type.js";
import { McrScorecard, RatingsDeployment } from "./scoring/mcr.type.js";
import { MonetizationState } from "./monetization/monetization.type.js";
import { MachineProfile } from "./profile.type.js";

const UNKNOWN_MACHINE = new Set(["MACHINE_NOT_FOUND", "MACHINE_NOT_REGISTERED", "MACHINE_WALLET_NOT_FOUND"]);

async function orNull<T>(read: Promise<T>): Promise<T | null> {
  try {
    return await read;
  } catch (error) {
    if (error instanceof DomainError && UNKNOWN_MACHINE.has(error.code)) return null;
    throw error;
  }
}

const machineIdOf = (machine: RatingsMachine) => parseDecimalArg(machine.machineId, RatingsErrors.machineNotFound);

@Resolver(() => RatingsMachine)
export class MachineResolver {
  constructor(private readonly deps: RatingsDeps) {}

  @FieldResolver(() => McrScorecard, { nullable: true, description: "MCR scorecard." })
  rating(
    @Root() machine: RatingsMachine,
    @DeploymentArg() deployment: RatingsDeployment,
  ): Promise<McrScorecard | null> {
    return orNull(Promise.resolve().then(() => this.deps.scorecards.byId(deploymentArg(deployment), machineIdOf(machine))));
  }

  @FieldResolver(() => MachineProfile, { nullable: true, description: "Profile (as GET /machine/{did})." })
  profile(
    @Root() machine: RatingsMachine,
    @DeploymentArg() deployment: RatingsDeployment,
  ): Promise<MachineProfile | null> {
    return orNull(Promise.resolve().then(() => this.deps.profiles.byId(deploymentArg(deployment), machineIdOf(machine))));
  }

  @FieldResolver(() => MachineCard, { nullable: true, description: "Machine card (as GET /machines/{machine_id})." })
  card(
    @Root() machine: RatingsMachine,
    @DeploymentArg() deployment: RatingsDeployment,
  ): Promise<MachineCard | null> {
    return orNull(Promise.resolve().then(() => this.deps.cards.card(deploymentArg(deployment), machineIdOf(machine))));
  }

  @FieldResolver(() => MonetizationState, { nullable: true, description: "Current monetization state (no signature needed)." })
  monetization(
    @Root() machine: RatingsMachine,
    @DeploymentArg() deployment: RatingsDeployment,
  ): Promise<MonetizationState | null> {
    return orNull(this.deps.monetization.state(deploymentArg(deployment), machine.machineId));
  }
}
