/** Scoring results as the GraphQL types show them (enums in capitals, big integers as decimal strings). */
import type { McrRating as ScoreRating, McrScore, RevenueTrend as ScoreTrend } from "./mcr-score.js";
import { BondStatus, McrRating, McrScorecard, RevenueTrend } from "./mcr.type.js";

export const ratingOf = (rating: ScoreRating): McrRating =>
  rating === "Provisioned" ? McrRating.PROVISIONED : McrRating[rating];

export const bondStatusOf = (bonded: boolean): BondStatus => (bonded ? BondStatus.BONDED : BondStatus.UNBONDED);

export const trendOf = (trend: ScoreTrend): RevenueTrend => RevenueTrend[trend.toUpperCase() as keyof typeof RevenueTrend];

export function toScorecard(score: McrScore, did: string, machineId: bigint): McrScorecard {
  return {
    did,
    machineId: machineId.toString(),
    mcrScore: score.mcrScore,
    mcr: ratingOf(score.mcr),
    mcrDegraded: score.mcrDegraded,
    bondStatus: bondStatusOf(score.bonded),
    negativeFlag: score.negativeFlag,
    eventCount: score.eventCount,
    revenueEventCount: score.revenueEventCount,
    activityEventCount: score.activityEventCount,
    revenueTrend: trendOf(score.revenueTrend),
    totalRevenue: score.totalRevenue.toString(),
    averageRevenuePerEvent: score.averageRevenuePerEvent,
    lastUpdated: score.lastUpdated,
  };
}
