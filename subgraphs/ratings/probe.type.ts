import { Field, ObjectType } from "type-graphql";

@ObjectType({ description: "Liveness: the process runs; no connectivity is checked." })
export class HealthReport {
  @Field(() => String)
  status!: string;
}

@ObjectType({ description: "Whether each contract answers a view call (REST: snake_case names)." })
export class ContractReadiness {
  @Field(() => Boolean) identityRegistry!: boolean;
  @Field(() => Boolean) identityStaking!: boolean;
  @Field(() => Boolean) eventRegistry!: boolean;
  @Field(() => Boolean) machineNft!: boolean;
  @Field(() => Boolean) didRegistry!: boolean;
  @Field(() => Boolean, { description: "True when the admin-flags address is not configured (probe skipped)." })
  adminFlags!: boolean;
}

@ObjectType({ description: "Readiness: `ready` when the RPC answers and every contract is callable, else `not_ready`." })
export class ReadinessReport {
  @Field(() => String)
  status!: string;

  @Field(() => Boolean)
  rpcConnected!: boolean;

  @Field(() => ContractReadiness)
  contracts!: ContractReadiness;
}
