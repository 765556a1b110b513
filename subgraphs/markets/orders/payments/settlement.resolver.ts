import { Arg, Mutation, Resolver } from "type-graphql";
import { JSONObjectScalar } from "../../../shared/json-object.scalar.js";
import type { MarketsDeps } from "../../deps.js";
import { PaymentIntentResult } from "../order.type.js";

const S = () => String;
const token = () => ({ nullable: true, description: "The pairing token (x-agent-pairing-token or Authorization: Bearer on REST)." });
const details = () => ({ nullable: true });

/** The chain rails' payment transitions after the intent (docs/markets-payments.md). */
@Resolver()
export class PaymentSettlementResolver {
  constructor(private readonly deps: MarketsDeps) {}

  @Mutation(() => PaymentIntentResult, {
    description: "POST /market/orders/:orderId/payment-proof: wallet { mode: rpc | recorded, txHash, from?, chainId? } or x402 { paymentPayload | paymentSignature }",
  })
  submitPaymentProof(
    @Arg("pairingToken", S, token()) pairingToken: string | null,
    @Arg("orderId", S) orderId: string,
    @Arg("details", () => JSONObjectScalar, details()) input: Record<string, unknown> | null,
  ) {
    return this.deps.settlements.proof(pairingToken, orderId, input);
  }

  @Mutation(() => PaymentIntentResult, { description: "POST /market/orders/:orderId/payment/escrow-lock (idempotent): { payer?, authorization? }" })
  lockPaymentEscrow(
    @Arg("pairingToken", S, token()) pairingToken: string | null,
    @Arg("orderId", S) orderId: string,
    @Arg("details", () => JSONObjectScalar, details()) input: Record<string, unknown> | null,
  ) {
    return this.deps.settlements.escrowLock(pairingToken, orderId, input);
  }

  @Mutation(() => PaymentIntentResult, { description: "POST /market/orders/:orderId/payment/release (requires release_pending)" })
  releasePayment(@Arg("pairingToken", S, token()) pairingToken: string | null, @Arg("orderId", S) orderId: string) {
    return this.deps.settlements.release(pairingToken, orderId);
  }

  @Mutation(() => PaymentIntentResult, { description: "POST /market/orders/:orderId/payment/refund (escrow, before delivery)" })
  refundPayment(@Arg("pairingToken", S, token()) pairingToken: string | null, @Arg("orderId", S) orderId: string) {
    return this.deps.settlements.refund(pairingToken, orderId);
  }
}
