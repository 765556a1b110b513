import { Field, ObjectType } from "type-graphql";

@ObjectType({ description: "Liveness: the process runs; no connectivity is checked." })
export class HealthReport {
  @Field(() => String)
  status!: string;
}

@ObjectType()
export class ContractReadiness {
  @Field(() => Boolean) identity_registry!: boolean;
  @Field(() => Boolean) identity_staking!: boolean;
  @Field(() => Boolean) event_registry!: boolean;
  @Field(() => Boolean) machine_nft!: boolean;
  @Field(() => Boolean) did_registry!: boolean;
  @Field(() => Boolean, { description: "True when the admin-flags address is not configured (probe skipped)." })
  admin_flags!: boolean;
}

@ObjectType({ description: "Readiness: `ready` when the RPC answers and every contract is callable, else `not_ready`." })
export class ReadinessReport {
  @Field(() => String)
  status!: string;

  @Field(() => Boolean)
  rpc_connected!: boolean;

  @Field(() => ContractReadiness)
  contracts!: ContractReadiness;
}
