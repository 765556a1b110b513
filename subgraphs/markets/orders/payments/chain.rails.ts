/**
 * The chain rails' payment intents, registered in 9a's PaymentRails seam (orders/payments/payment.service.ts): `wallet` (ERC-20
 * transfer proven by its transaction), `onchain-escrow` (PaymentEscrow) and `x402` (signed EIP-3009 authorization).
 *
 * Each intent names the token (the test stablecoin), the payee (PAYMENT_PAYEE_ADDRESS), the chain and the raw amount:
 * the service's fixed price in USD as 6-decimal stablecoin units. A service without a fixed USD price cannot be paid
 * on these rails (VALIDATION_ERROR); an optional `payer` must be an EVM address (VALIDATION_ERROR). The x402 intent
 * carries the v1 PaymentRequirements in `details.paymentRequirements`; the escrow intent the escrow's address, the
 * order key and the EIP-3009 nonce a signed deposit must use. The order moves to `payment_pending`.
 */
import { getAddress, isAddress, parseUnits } from "ethers";
import type { IntentContext, IntentPlan, PaymentRail, PaymentRails } from "./payment.service.js";
import { escrowLockNonce, escrowOrderKey } from "./escrow.js";
import { PaymentErrors } from "./payment.errors.js";
import type { PaymentChain } from "./index.js";
import { buildRequirements } from "./x402.js";

/** Currencies a fixed price may be in to be paid in the (USD-pegged) test stablecoin. */
const STABLE_CURRENCIES = ["USD", "USDC", "USDT", "TUSD"];

interface Terms {
  chainId: string;
  token: string;
  payee: string;
  payer: string | null;
  amountRaw: bigint;
  amount: string;
  currency: string;
}

function termsOf(chain: PaymentChain, ctx: IntentContext, decimals = 6): Terms {
  const pricing = ctx.service.pricing as { mode: string; amount: string | null; currency: string | null };
  if (pricing.mode !== "fixed" || pricing.amount === null || !STABLE_CURRENCIES.includes(pricing.currency ?? "")) {
    throw PaymentErrors.validation();
  }
  const payer = ctx.details.payer;
  if (payer !== undefined && (typeof payer !== "string" || !isAddress(payer))) throw PaymentErrors.validation();
  let amountRaw: bigint;
  try {
    amountRaw = parseUnits(pricing.amount, decimals);
  } catch {
    throw PaymentErrors.validation();
  }
  if (amountRaw <= 0n) throw PaymentErrors.validation();
  return {
    chainId: String(chain.chainId),
    token: chain.tokenAddress,
    payee: chain.payee,
    payer: payer === undefined ? null : getAddress(payer),
    amountRaw,
    amount: pricing.amount,
    currency: pricing.currency!,
  };
}

function plan(terms: Terms, details: Record<string, unknown>, escrowRef: string | null = null): IntentPlan {
  return {
    status: "intent_created",
    orderStatus: "payment_pending",
    required: true,
    amount: terms.amount,
    currency: terms.currency,
    chainId: terms.chainId,
    token: terms.token,
    payee: terms.payee,
    payer: terms.payer,
    amountRaw: terms.amountRaw.toString(),
    escrowRef,
    details: { chainId: terms.chainId, token: terms.token, payee: terms.payee, amountRaw: terms.amountRaw.toString(), decimals: 6, ...details } as never,
  };
}

export function chainRails(chain: PaymentChain, resourceBase: string): PaymentRails {
  const wallet: PaymentRail = {
    async intent(ctx) {
      return plan(termsOf(chain, ctx), { proof: { modes: ["rpc", "recorded"], transfer: "ERC-20 Transfer(payer, payee, amountRaw) on token" } });
    },
  };
  const escrow: PaymentRail = {
    async intent(ctx) {
      const terms = termsOf(chain, ctx);
      const orderKey = escrowOrderKey(ctx.order.id);
      return plan(
        terms,
        { escrow: chain.escrowAddress, orderKey, lockNonce: escrowLockNonce(chain.escrowAddress, orderKey, terms.payee) },
        orderKey,
      );
    },
  };
  const x402: PaymentRail = {
    async intent(ctx) {
      const terms = termsOf(chain, ctx);
      const paymentRequirements = buildRequirements({
        network: chain.x402Network,
        token: await chain.tokenDomain(),
        payTo: terms.payee,
        amountRaw: terms.amountRaw,
        resource: `${resourceBase}/market/orders/${ctx.order.id}/execute`,
        description: `market order ${ctx.order.id}: ${ctx.order.skillKey} ${ctx.order.operation}`,
        maxTimeoutSeconds: chain.x402MaxTimeoutSeconds,
      });
      return plan(terms, { x402Version: 1, paymentRequirements });
    },
  };
  return { wallet, "onchain-escrow": escrow, x402 };
}
