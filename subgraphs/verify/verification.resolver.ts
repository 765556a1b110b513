import { Arg, FieldResolver, Query, Resolver, Root } from "type-graphql";
import { MachineVerificationRecord, VerifyMachine } from "./machine.type.js";
import type { VerifyDeps } from "./deps.js";

@Resolver(() => VerifyMachine)
export class VerificationResolver {
  constructor(private readonly deps: VerifyDeps) {}

  @Query(() => MachineVerificationRecord, {
    description: "Verification record of a machine homed on the primary chain (GET /v1/verify/machines/{machineId}).",
  })
  machineVerification(@Arg("machineId", () => String) machineId: string): Promise<MachineVerificationRecord> {
    return this.deps.records.record(machineId);
  }

  @Query(() => VerifyMachine, {
    nullable: true,
    description: "A machine by its decimal ID, for reading across subgraphs; null when the registry has no such ID.",
  })
  async machine(@Arg("machineId", () => String) machineId: string): Promise<VerifyMachine | null> {
    return (await this.deps.records.exists(machineId)) ? Object.assign(new VerifyMachine(), { machineId }) : null;
  }

  @FieldResolver(() => MachineVerificationRecord, { nullable: true })
  verification(@Root() machine: VerifyMachine): Promise<MachineVerificationRecord> {
    return this.deps.records.record(machine.machineId);
  }
}
