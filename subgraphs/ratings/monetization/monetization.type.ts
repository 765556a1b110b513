import { Field, Float, InputType, ObjectType, registerEnumType } from "type-graphql";

export enum MonetizationStatus {
  PENDING = "PENDING",
  OPTED_IN = "OPTED_IN",
  OPTED_OUT = "OPTED_OUT",
}
registerEnumType(MonetizationStatus, {
  name: "MonetizationStatus",
  description: "`PENDING`: the machine never opted in or out (no decision stored).",
});

@ObjectType({ description: "The applied monetization decision of a machine (GET /machine/{key}/monetization)." })
export class MonetizationState {
  @Field(() => String, { description: "The resolved decimal machine ID." })
  machineId!: string;

  @Field(() => MonetizationStatus)
  status!: MonetizationStatus;

  @Field(() => String, { nullable: true, description: "Address that signed the applied decision; null only when PENDING." })
  signer!: string | null;

  @Field(() => Float, { nullable: true, description: "Unix seconds of the applied decision; null only when PENDING." })
  updatedAt!: number | null;
}

@InputType({ description: "A signed opt-in or opt-out (PUT /machine/{key}/monetization); docs/monetization.md." })
export class MonetizationDecisionInput {
  @Field(() => Boolean)
  optedIn!: boolean;

  @Field(() => Float, { description: "Unix seconds of signing: a positive integer inside the freshness window." })
  timestamp!: number;

  @Field(() => String, { description: "EIP-191 signature of the canonical message: 0x and 130 hex characters." })
  signature!: string;
}

@ObjectType({ description: "Compatibility signal clients check before signing (GET /.well-known/<namespace>-monetization)." })
export class MonetizationCompatibility {
  @Field(() => String, { description: "`<namespace>-monetization`." })
  api!: string;

  @Field(() => Float, { description: "Version of the message template and the PUT body; 1." })
  version!: number;

  @Field(() => String, { description: "`1.0` or `2.0`." })
  deployment!: string;

  @Field(() => String, { description: "Decimal chain ID the server signs against." })
  chainId!: string;

  @Field(() => String, { description: "Registry address in the message, lowercase." })
  registry!: string;

  @Field(() => String, { description: "The canonical message with `{name}` placeholders, LF-separated." })
  messageTemplate!: string;

  @Field(() => Float)
  maxAgeSeconds!: number;

  @Field(() => Float)
  maxFutureSeconds!: number;
}
