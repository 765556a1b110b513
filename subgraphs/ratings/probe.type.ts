import { Field, ObjectType, registerEnumType } from "type-graphql";

/** Liveness status; the REST body spells it `ok`. */
export enum HealthStatus {
  OK = "OK",
}
registerEnumType(HealthStatus, { name: "HealthStatus", description: "Liveness status; REST spelling `ok`." });

/** Readiness status; the REST body spells the values `ready` and `not_ready`. */
export enum ReadinessStatus {
  READY = "READY",
  NOT_READY = "NOT_READY",
}
registerEnumType(ReadinessStatus, {
  name: "ReadinessStatus",
  description: "Readiness status; REST spellings `ready` and `not_ready`.",
});

@ObjectType({ description: "Liveness: the process runs; no connectivity is checked." })
export class HealthReport {
  @Field(() => HealthStatus)
  status!: HealthStatus;
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

@ObjectType({ description: "Readiness: `READY` when the RPC answers and every contract is callable, else `NOT_READY`." })
export class ReadinessReport {
  @Field(() => ReadinessStatus)
  status!: ReadinessStatus;

  @Field(() => Boolean)
  rpcConnected!: boolean;

  @Field(() => ContractReadiness)
  contracts!: ContractReadiness;
}
