import { Field, Float, InputType, Int, ObjectType } from "type-graphql";
import { JSONObjectScalar } from "../../shared/json-object.scalar.js";
import { DateTimeScalar } from "../../shared/date-time.scalar.js";

import { statusEnum } from "../common/status-enum.js";
import { INTEGRATION_STATUSES } from "./catalogue.seed.js";

const S = () => String;

/** A skill's, service's and quote's integration status (REST: lowercase). */
export const MarketIntegrationStatus = statusEnum(
  "MarketIntegrationStatus",
  INTEGRATION_STATUSES,
  "LIVE, PARTNER or PLANNED, as the service catalogue lists the provider (REST: lowercase).",
);

@ObjectType({ description: "A skill of the service catalogue (SkillSummary)." })
export class MarketSkill {
  @Field(S) key!: string;
  @Field(S) providerKey!: string;
  @Field(S) label!: string;
  @Field(S) description!: string;
  @Field(() => [String]) serviceTypes!: string[];
  @Field(() => [String]) operations!: string[];
  @Field(S, { description: "native | external-handoff" }) executionMode!: string;
  @Field(() => MarketIntegrationStatus) integrationStatus!: string;
}

@ObjectType({ description: "Where an external-handoff service continues." })
export class MarketHandoff {
  @Field(S) label!: string;
  @Field(S) url!: string;
  @Field(() => [String]) notes!: string[];
}

@ObjectType({ description: "mode: provider-defined | fixed | quote-required; amounts are decimal strings." })
export class MarketPricing {
  @Field(S) mode!: string;
  @Field(() => String, { nullable: true }) amount!: string | null;
  @Field(() => String, { nullable: true }) currency!: string | null;
  @Field(() => String, { nullable: true }) rate!: string | null;
  @Field(() => [String]) notes!: string[];
}

@ObjectType()
export class MarketPaymentHint {
  @Field(S) defaultRail!: string;
  @Field(() => Boolean) required!: boolean;
  @Field(() => [String], { nullable: true, description: "The MarketPaymentRailTypes the service accepts (absent: defaultRail only)." })
  supportedRails?: string[] | null;
}

@ObjectType({ description: "A catalogue service (CatalogService: MarketService plus provider and access fields)." })
export class MarketService {
  @Field(S) id!: string;
  @Field(S) skillKey!: string;
  @Field(S) providerKey!: string;
  @Field(S) companyName!: string;
  @Field(S) serviceType!: string;
  @Field(S) name!: string;
  @Field(S) description!: string;
  @Field(() => [String]) operations!: string[];
  @Field(S) executionMode!: string;
  @Field(() => MarketIntegrationStatus) integrationStatus!: string;
  @Field(S) region!: string;
  @Field(() => [String]) capabilities!: string[];
  @Field(() => MarketHandoff, { nullable: true }) handoff!: MarketHandoff | null;
  @Field(() => JSONObjectScalar, { description: "The provider's own service metadata: free-form by design." }) metadata!: Record<string, unknown>;
  @Field(S) providerId!: string;
  @Field(S) providerLabel!: string;
  @Field(S) authType!: string;
  @Field(S) accessMode!: string;
  @Field(S) distribution!: string;
  @Field(S) maturity!: string;
  @Field(S) kind!: string;
  @Field(() => Int) freshnessSeconds!: number;
  @Field(() => Boolean) requiresHumanEnablement!: boolean;
  @Field(() => String, { nullable: true }) referenceUrl!: string | null;
  @Field(() => String, { nullable: true }) artifactUrl!: string | null;
  @Field(() => MarketPricing) pricing!: MarketPricing;
  @Field(() => MarketPaymentHint) payment!: MarketPaymentHint;
}

@ObjectType({ description: "A page of catalogue services (ordered by ID)." })
export class MarketServicePage {
  @Field(() => [MarketService]) items!: MarketService[];
  @Field(() => String, { nullable: true }) nextCursor!: string | null;
}

@ObjectType({ description: "A ranked quote; valid until expiresAt (QUOTE_EXPIRED after)." })
export class MarketQuote {
  @Field(S) id!: string;
  @Field(S) searchId!: string;
  @Field(S) serviceId!: string;
  @Field(S) skillKey!: string;
  @Field(S) providerKey!: string;
  @Field(S) executionMode!: string;
  @Field(() => MarketIntegrationStatus) integrationStatus!: string;
  @Field(S) operation!: string;
  @Field(() => Float) score!: number;
  @Field(() => [String]) reasons!: string[];
  @Field(() => MarketPricing) pricing!: MarketPricing;
  @Field(() => MarketPaymentHint) payment!: MarketPaymentHint;
  @Field(() => DateTimeScalar) expiresAt!: string;
}

@ObjectType({ description: "POST /market/search: the ranked quotes of one search." })
export class MarketSearch {
  @Field(S) searchId!: string;
  @Field(S) machineId!: string;
  @Field(() => DateTimeScalar) createdAt!: string;
  @Field(() => DateTimeScalar) expiresAt!: string;
  @Field(() => [MarketQuote]) quotes!: MarketQuote[];
}

@InputType()
export class MarketBudgetInput {
  @Field(() => String, { nullable: true, description: "Decimal string, the most one call may cost." }) amount?: string | null;
  @Field(() => String, { nullable: true }) currency?: string | null;
}

@InputType({ description: "Machine context, requirements, region, budget and execution preferences." })
export class MarketSearchInput {
  @Field(S) machineId!: string;
  @Field(() => String, { nullable: true }) skillKey?: string | null;
  @Field(() => String, { nullable: true }) serviceType?: string | null;
  @Field(() => String, { nullable: true }) operation?: string | null;
  @Field(() => [String], { nullable: true }) capabilities?: string[] | null;
  @Field(() => String, { nullable: true }) region?: string | null;
  @Field(() => Int, { nullable: true, description: "1..50, default 10." }) maxResults?: number | null;
  @Field(() => MarketBudgetInput, { nullable: true }) budget?: MarketBudgetInput | null;
  @Field(() => Boolean, { nullable: true }) nativeOnly?: boolean | null;
  @Field(() => Boolean, { nullable: true }) allowHandoff?: boolean | null;
}
