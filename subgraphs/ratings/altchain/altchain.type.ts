import { Field, ObjectType } from "type-graphql";
import { McrScorecard } from "../scoring/mcr.type.js";
import { OperatorMachines } from "../operator.type.js";

@ObjectType({ description: "GET /altchain/mcr/{altchain_addr}: the scorecard of the EVM identity a second-chain key is bound to." })
export class AltchainMcr {
  @Field(() => String, { description: "The second-chain key as asked for (base58)." })
  altchainAddress!: string;

  @Field(() => String, { description: "The bound EVM identity (checksummed)." })
  evmAddress!: string;

  @Field(() => McrScorecard)
  scorecard!: McrScorecard;
}

@ObjectType({ description: "GET /altchain/operator/{altchain_addr}/machines: the bound operator's listing." })
export class AltchainOperatorMachines {
  @Field(() => String)
  altchainAddress!: string;

  @Field(() => String)
  evmAddress!: string;

  @Field(() => OperatorMachines)
  listing!: OperatorMachines;
}
