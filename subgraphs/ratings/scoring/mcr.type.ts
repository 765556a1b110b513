import { Field, Float, Int, ObjectType, registerEnumType } from "type-graphql";

export enum RatingsDeployment {
  V1 = "V1",
  V2 = "V2",
}
registerEnumType(RatingsDeployment, {
  name: "RatingsDeployment",
  description: "`V1`: machines of the identity registry, address DIDs. `V2`: machines of the machine registry, decimal DIDs.",
});

export enum McrRating {
  AAA = "AAA",
  AA = "AA",
  A = "A",
  BBB = "BBB",
  BB = "BB",
  B = "B",
  NR = "NR",
  PROVISIONED = "PROVISIONED",
}
registerEnumType(McrRating, { name: "McrRating", description: "Rating bands of docs/mcr-scoring.md." });

export enum BondStatus {
  BONDED = "BONDED",
  UNBONDED = "UNBONDED",
}
registerEnumType(BondStatus, { name: "BondStatus" });

export enum RevenueTrend {
  UP = "UP",
  STABLE = "STABLE",
  DOWN = "DOWN",
  INSUFFICIENT = "INSUFFICIENT",
}
registerEnumType(RevenueTrend, { name: "RevenueTrend", description: "Last 30 days of revenue against the 30 before." });

@ObjectType({ description: "MCR scorecard of one machine (GET /mcr/{did})." })
export class McrScorecard {
  @Field(() => String, { description: "The DID as asked for." })
  did!: string;

  @Field(() => String, { description: "Decimal on-chain machine ID." })
  machineId!: string;

  @Field(() => Int, { description: "0-100; 0 when NR or PROVISIONED." })
  mcrScore!: number;

  @Field(() => McrRating)
  mcr!: McrRating;

  @Field(() => Boolean, { description: "A revenue event in the score window had no usable FX rate." })
  mcrDegraded!: boolean;

  @Field(() => BondStatus)
  bondStatus!: BondStatus;

  @Field(() => Boolean)
  negativeFlag!: boolean;

  @Field(() => Int)
  eventCount!: number;

  @Field(() => Int)
  revenueEventCount!: number;

  @Field(() => Int)
  activityEventCount!: number;

  @Field(() => RevenueTrend)
  revenueTrend!: RevenueTrend;

  @Field(() => String, { description: "USD cents over the full history, as a decimal string." })
  totalRevenue!: string;

  @Field(() => Float, { description: "USD cents per revenue event." })
  averageRevenuePerEvent!: number;

  @Field(() => Float, { nullable: true, description: "Unix seconds the latest event was recorded; null without events." })
  lastUpdated!: number | null;
}
