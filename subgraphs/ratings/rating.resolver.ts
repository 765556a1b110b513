/** Root queries of the read routes: scorecards, profiles, metadata, operator listings, machine cards. */
import { Arg, Int, Query, Resolver } from "type-graphql";
import { MachineCard } from "./card.type.js";
import type { RatingsDeps } from "./deps.js";
import { RatingsErrors } from "./errors.js";
import { DeploymentArg, deploymentArg, parseDecimalArg } from "./graphql-args.js";
import { McrScorecard, RatingsDeployment } from "./scoring/mcr.type.js";
import { OperatorMachines } from "./operator.type.js";
import { MachineProfile } from "./profile.type.js";

@Resolver()
export class RatingResolver {
  constructor(private readonly deps: RatingsDeps) {}

  @Query(() => McrScorecard, { description: "GET /mcr/{did}: V1 takes did:<m>:0x<address> or 0x<address>, V2 did:<m>:<decimal>." })
  mcrScorecard(
    @Arg("did", () => String) did: string,
    @DeploymentArg() deployment: RatingsDeployment,
  ): Promise<McrScorecard> {
    return this.deps.scorecards.scorecard(deploymentArg(deployment), did);
  }

  @Query(() => MachineProfile, { description: "GET /machine/{did}" })
  machineProfile(
    @Arg("did", () => String) did: string,
    @DeploymentArg() deployment: RatingsDeployment,
  ): Promise<MachineProfile> {
    return this.deps.profiles.byDid(deploymentArg(deployment), did);
  }

  @Query(() => MachineProfile, { description: "GET /metadata/{token_id}: by MachineNFT token ID (decimal), not machine ID." })
  tokenMetadata(
    @Arg("tokenId", () => String) tokenId: string,
    @DeploymentArg() deployment: RatingsDeployment,
  ): Promise<MachineProfile> {
    return this.deps.profiles.byToken(deploymentArg(deployment), parseDecimalArg(tokenId, RatingsErrors.tokenNotFound));
  }

  @Query(() => OperatorMachines, { description: "GET /operator/{did}/machines: offset 0 or more, limit 1 to 20." })
  operatorMachines(
    @Arg("did", () => String) did: string,
    @Arg("offset", () => Int, { defaultValue: 0 }) offset: number,
    @Arg("limit", () => Int, { defaultValue: 20 }) limit: number,
    @DeploymentArg() deployment: RatingsDeployment,
  ): Promise<OperatorMachines> {
    return this.deps.operators.listing(deploymentArg(deployment), did, offset, limit);
  }

  @Query(() => MachineCard, { description: "GET /machines/{machine_id}: by decimal on-chain machine ID." })
  machineCard(
    @Arg("machineId", () => String) machineId: string,
    @DeploymentArg() deployment: RatingsDeployment,
  ): Promise<MachineCard> {
    return this.deps.cards.card(deploymentArg(deployment), parseDecimalArg(machineId, RatingsErrors.machineNotFound));
  }
}

