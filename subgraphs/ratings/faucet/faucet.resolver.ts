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

  @Mutation(() => TwoFactorConfirmation, { description: "POST /2fa/confirm: the first code from the authenticator." })
  async confirmTwoFactor(
    @Arg("ownerAddress", () => String) ownerAddress: string,
    @Arg("twoFactorCode", () => String) twoFactorCode: string,
  ): Promise<TwoFactorConfirmation> {
    await this.deps.twoFactor.confirm(ownerAddress, twoFactorCode);
    return { ownerAddress, twoFactorActive: true };
  }

  @Mutation(() => Funding, { description: "POST /faucet/fund" })
  fundWallet(@Arg("input", () => FundWalletInput) input: FundWalletInput, @Ctx() context: SubgraphContext): Promise<Funding> {
    return this.deps.faucet.fund(input, context.clientIp ?? "unknown");
  }
}
