import { Arg, Int, Mutation, Query, Resolver } from "type-graphql";
import type { MarketsDeps } from "../deps.js";
import { MarketPolicy, MarketPolicyInput, MarketPolicyPage } from "./policy.type.js";

const S = () => String;
const opt = { nullable: true } as const;

/** Policy operations skip the machine check (global rule 1). */
@Resolver()
export class PolicyResolver {
  constructor(private readonly deps: MarketsDeps) {}

  @Query(() => MarketPolicyPage, { description: "GET /policies (newest first)" })
  marketPolicies(
    @Arg("status", S, { nullable: true, description: "A MarketPolicyStatus in its stored spelling (active, disabled): a string, checked by the service, so an unknown value answers VALIDATION_ERROR as on REST." }) status: string | null,
    @Arg("kind", S, opt) kind: string | null,
    @Arg("limit", () => Int, opt) limit: number | null,
    @Arg("cursor", S, opt) cursor: string | null,
  ): Promise<MarketPolicyPage> {
    return this.deps.policies.list({ limit, cursor }, { status, kind });
  }

  @Query(() => MarketPolicy, { description: "GET /policies/:policyId" })
  marketPolicy(@Arg("policyId", S) policyId: string): Promise<MarketPolicy> {
    return this.deps.policies.get(policyId);
  }

  @Mutation(() => MarketPolicy, { description: "POST /policies (201)" })
  createMarketPolicy(@Arg("input", () => MarketPolicyInput) input: MarketPolicyInput): Promise<MarketPolicy> {
    return this.deps.policies.create(input);
  }

  @Mutation(() => MarketPolicy, { description: "PATCH /policies/:policyId" })
  updateMarketPolicy(@Arg("policyId", S) policyId: string, @Arg("input", () => MarketPolicyInput) input: MarketPolicyInput): Promise<MarketPolicy> {
    return this.deps.policies.update(policyId, input);
  }
}
