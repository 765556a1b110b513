import { Arg, Field, Mutation, ObjectType, Query, Resolver } from "type-graphql";
import type { MarketsDeps } from "../deps.js";
import { MarketOrder, MarketPayment } from "./order.type.js";

const S = () => String;
const operator = () => ({ nullable: true, description: "A token of OPERATOR_TOKENS (Authorization: Bearer on REST)." });

@ObjectType({ description: "A resolved dispute: the order (confirmed or cancelled, with its resolution) and its payment." })
export class MarketDisputeResolution {
  @Field(() => MarketOrder) order!: MarketOrder;
  @Field(() => MarketPayment, { nullable: true }) payment!: MarketPayment | null;
}

/** The arbiter's resolution of disputed market orders (orders/dispute.service.ts). */
@Resolver()
export class MarketDisputeResolver {
  constructor(private readonly deps: MarketsDeps) {}

  @Mutation(() => MarketDisputeResolution, {
    description: "POST /market/orders/:orderId/resolve: the operator releases a disputed order's payment to the payee or refunds it to the payer",
  })
  resolveMarketOrderDispute(
    @Arg("operatorToken", S, operator()) operatorToken: string | null,
    @Arg("orderId", S) orderId: string,
    @Arg("decision", () => String, { nullable: true, description: "release | refund" }) decision: string | null,
    @Arg("reason", () => String, { nullable: true, description: "1..1000 characters, stored with the decision" }) reason: string | null,
  ) {
    return this.deps.disputes.resolve(operatorToken, orderId, decision, reason);
  }

  @Query(() => Boolean, { description: "Checks the operator's credential alone: true, or OPERATOR_AUTH_REQUIRED / OPERATOR_AUTH_INVALID." })
  marketOperatorAuthority(@Arg("operatorToken", S, operator()) operatorToken: string | null): boolean {
    this.deps.disputes.authorize(operatorToken);
    return true;
  }
}
