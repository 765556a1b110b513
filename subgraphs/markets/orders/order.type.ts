import { Field, InputType, Int, ObjectType } from "type-graphql";
import { statusEnum } from "../common/status-enum.js";
import { JSONObjectScalar } from "../../shared/json-object.scalar.js";
import { MarketHandoff, MarketIntegrationStatus } from "../work/catalogue.type.js";
import { MarketOutcome, MarketRun, MarketTask } from "../work/task.type.js";
import { DateTimeScalar } from "../../shared/date-time.scalar.js";
import { ORDER_STATUSES, PAYMENT_STATUSES } from "./order.states.js";

const S = () => String;
const N = { nullable: true } as const;
const J = () => JSONObjectScalar;

/**
 * An order's and a payment's states (order.states.ts). Services, rows and audit payloads keep the lowercase
 * spellings; GraphQL answers the UPPER_CASE names and the REST shim writes them back in lowercase.
 */
export const MarketOrderStatus = statusEnum(
  "MarketOrderStatus",
  ORDER_STATUSES,
  "CREATED → PAYMENT_PENDING → READY → EXECUTING → DELIVERED → CONFIRMED, or HANDOFF, DISPUTED, FAILED, CANCELLED (REST: lowercase).",
);
export const MarketPaymentStatus = statusEnum("MarketPaymentStatus", PAYMENT_STATUSES, "A payment's state (REST: lowercase).");

@ObjectType({ description: "What an order counts against its pairing's delegation limits." })
export class MarketOrderSpend {
  @Field(S) amount!: string;
  @Field(() => String, N) currency!: string | null;
}

@ObjectType({ description: "A market order (public notes 2.7 MarketOrderRecord); status is a MarketOrderStatus." })
export class MarketOrder {
  @Field(S) id!: string;
  @Field(S) machineId!: string;
  @Field(S) agentPairingId!: string;
  @Field(() => String, N) searchId!: string | null;
  @Field(() => String, N) quoteId!: string | null;
  @Field(S) serviceId!: string;
  @Field(S) skillKey!: string;
  @Field(S) providerKey!: string;
  @Field(S) serviceType!: string;
  @Field(S) operation!: string;
  @Field(S) executionMode!: string;
  @Field(() => MarketIntegrationStatus) integrationStatus!: string;
  @Field(() => MarketOrderStatus) status!: string;
  @Field(() => DateTimeScalar, { nullable: true, description: "While EXECUTING: when the execution claim lapses and the order is recovered (failed, its payment refunded); null otherwise." })
  executingDeadline!: string | null;
  @Field(J, { description: "The caller's free-form input object, passed to the provider." }) input!: Record<string, unknown>;
  @Field(J, { nullable: true, description: "The budget as the caller gave it (amount, currency: the members given only)." })
  budget!: Record<string, unknown> | null;
  @Field(J, { description: "The service's payment recommendation: defaultRail, required, supportedRails." }) payment!: Record<string, unknown>;
  @Field(J, { description: "The catalogue service as it was when the order was made, stored whole: its shape is the catalogue's of that day." })
  serviceSnapshot!: Record<string, unknown>;
  @Field(() => MarketOrderSpend) spend!: MarketOrderSpend;
  @Field(() => String, N) taskId!: string | null;
  @Field(() => String, N) routeId!: string | null;
  @Field(() => String, N) runId!: string | null;
  @Field(() => String, N) outcomeId!: string | null;
  @Field(J, { nullable: true, description: "Where an external-handoff order continues, as the provider answered it; null otherwise." })
  handoff!: Record<string, unknown> | null;
  @Field(() => String, N) errorMessage!: string | null;
  @Field(J, { nullable: true, description: "The arbiter's decision on a dispute: { decision: release | refund, reason, resolvedAt, onChain }; null otherwise." })
  resolution!: Record<string, unknown> | null;
  @Field(() => DateTimeScalar) createdAt!: string;
  @Field(() => DateTimeScalar) updatedAt!: string;
}

@ObjectType()
export class MarketOrderPage {
  @Field(() => [MarketOrder]) items!: MarketOrder[];
  @Field(() => String, N) nextCursor!: string | null;
}

@ObjectType({ description: "The payment of an order; status is a MarketPaymentStatus, rail a MarketPaymentRailType." })
export class MarketPayment {
  @Field(S) id!: string;
  @Field(S) orderId!: string;
  @Field(S) machineId!: string;
  @Field(S) rail!: string;
  @Field(() => MarketPaymentStatus) status!: string;
  @Field(() => Boolean) required!: boolean;
  @Field(() => String, N) amount!: string | null;
  @Field(() => String, N) currency!: string | null;
  @Field(() => String, N) chainId!: string | null;
  @Field(() => String, N) token!: string | null;
  @Field(() => String, N) payee!: string | null;
  @Field(() => String, N) payer!: string | null;
  @Field(() => String, N) amountRaw!: string | null;
  @Field(() => String, N) txHash!: string | null;
  @Field(() => String, N) proofMode!: string | null;
  @Field(() => String, N) escrowRef!: string | null;
  @Field(J, { description: "The rail's own members (x402 requirements, escrow lock, transfer proof): their shape follows the rail." })
  details!: Record<string, unknown>;
  @Field(() => DateTimeScalar) createdAt!: string;
  @Field(() => DateTimeScalar) updatedAt!: string;
}

@ObjectType({ description: "A payment intent's answer: the payment and the order's status after it." })
export class PaymentIntentResult {
  @Field(() => MarketPayment) payment!: MarketPayment;
  @Field(() => MarketOrderStatus) orderStatus!: string;
}

@ObjectType({ description: "An order's execution: the order after it, and the task, run, outcome (as task execute)." })
export class OrderExecution {
  @Field(() => Int) httpStatus!: number;
  @Field(() => MarketOrder) order!: MarketOrder;
  @Field(() => MarketTask) task!: MarketTask;
  @Field(() => MarketRun) run!: MarketRun;
  @Field(() => MarketOutcome) outcome!: MarketOutcome;
  @Field(() => MarketHandoff, N) handoff!: MarketHandoff | null;
}

@InputType()
export class OrderBudgetInput {
  @Field(() => String, N) amount?: string | null;
  @Field(() => String, N) currency?: string | null;
}

@InputType({ description: "POST /market/orders: a quote of a search for this machine." })
export class CreateMarketOrderInput {
  @Field(S) machineId!: string;
  @Field(S) searchId!: string;
  @Field(S) quoteId!: string;
  @Field(J, N) input?: Record<string, unknown> | null;
  @Field(() => OrderBudgetInput, N) budget?: OrderBudgetInput | null;
}
