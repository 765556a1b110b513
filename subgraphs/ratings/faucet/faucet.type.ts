import { Field, InputType, ObjectType, registerEnumType } from "type-graphql";

export enum FundingStatus {
  SUCCESS = "SUCCESS",
  SKIPPED = "SKIPPED",
}
registerEnumType(FundingStatus, {
  name: "FundingStatus",
  description: "`SKIPPED`: the wallet already holds the minimum gas balance; nothing was sent.",
});

@ObjectType({ description: "POST /2fa/setup: enrol an authenticator app." })
export class TwoFactorEnrolment {
  @Field(() => String)
  ownerAddress!: string;

  @Field(() => String, { description: "otpauth://totp/... carrying the secret; shown once." })
  otpauthUri!: string;

  @Field(() => String, { description: "The URI as a QR code: a PNG (or SVG) data URL." })
  qrImageUrl!: string;
}

@ObjectType({ description: "POST /2fa/confirm: two-factor is active." })
export class TwoFactorConfirmation {
  @Field(() => String)
  ownerAddress!: string;

  @Field(() => Boolean)
  twoFactorActive!: boolean;
}

@InputType({ description: "POST /faucet/fund." })
export class FundWalletInput {
  @Field(() => String)
  ownerAddress!: string;

  @Field(() => String)
  targetWalletAddress!: string;

  @Field(() => String, { description: "The faucet's chain name (FAUCET_CHAIN_NAME) or its decimal chain ID." })
  chainId!: string;

  @Field(() => String, { description: "The current 6-digit code of the owner's authenticator." })
  twoFactorCode!: string;

  @Field(() => String, { nullable: true, description: "Idempotency key (1-64 of A-Z a-z 0-9 _ -); generated when absent." })
  requestId?: string | null;
}

@ObjectType({ description: "The outcome of a funding request (the same for every retry with its requestId)." })
export class Funding {
  @Field(() => FundingStatus)
  status!: FundingStatus;

  @Field(() => String)
  requestId!: string;

  @Field(() => String, { nullable: true, description: "0x hash of the transfer; null when skipped." })
  txHash!: string | null;

  @Field(() => String, { nullable: true, description: "Wei sent, as a decimal string; null when skipped." })
  fundedAmount!: string | null;
}
