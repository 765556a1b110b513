import { Arg, Ctx, Mutation, Resolver } from "type-graphql";
import type { SubgraphContext } from "../../shared/context.js";
import type { RatingsDeps } from "../deps.js";
import { FundWalletInput, Funding, TwoFactorConfirmation, TwoFactorEnrolment } from "./faucet.type.js";

@Resolver()
export class FaucetResolver {
  constructor(private readonly deps: RatingsDeps) {}

  @Mutation(() => TwoFactorEnrolment, { description: "POST /2fa/setup: format `png` (default) or `svg`." })
  setupTwoFactor(
    @Arg("ownerAddress", () => String) ownerAddress: string,
    @Arg("format", () => String, { defaultValue: "png" }) format: string,
  ): Promise<TwoFactorEnrolment> {
    return this.deps.twoFactor.setup(ownerAddress, format);
  }

  @Mutation(() => TwoFactorEnrolment, {
    description:
      "POST /2fa/reset: a new enrolment for whoever holds the owner address's key, replacing any other and lifting every " +
      "lock. `signature`: EIP-191 personal_sign of the reset message (docs/faucet.md) naming `issuedAt`.",
  })
  resetTwoFactor(
    @Arg("ownerAddress", () => String) ownerAddress: string,
    @Arg("issuedAt", () => String, { description: "ISO 8601 UTC, e.g. 2026-01-01T00:00:00Z; within 300 s before to 30 s after now." })
    issuedAt: string,
    @Arg("signature", () => String, { description: "0x and 130 hex characters." }) signature: string,
    @Arg("format", () => String, { defaultValue: "png" }) format: string,
  ): Promise<TwoFactorEnrolment> {
    return this.deps.twoFactor.reset({ ownerAddress, issuedAt, signature, format });
  }

  @Mutation(() => TwoFactorConfirmation, { description: "POST /2fa/confirm: the first code from the authenticator." })
  async confirmTwoFactor(
    @Arg("ownerAddress", () => String) ownerAddress: string,
    @Arg("twoFactorCode", () => String) twoFactorCode: string,
    @Ctx() context: SubgraphContext,
  ): Promise<TwoFactorConfirmation> {
    await this.deps.twoFactor.confirm(ownerAddress, twoFactorCode, context.clientIp ?? "unknown");
    return { ownerAddress, twoFactorActive: true };
  }

  @Mutation(() => Funding, { description: "POST /faucet/fund" })
  fundWallet(@Arg("input", () => FundWalletInput) input: FundWalletInput, @Ctx() context: SubgraphContext): Promise<Funding> {
    return this.deps.faucet.fund(input, context.clientIp ?? "unknown");
  }
}
