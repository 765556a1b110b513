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
    description:
      "A machine by its decimal ID, for reading across subgraphs: answers for every machine the machine registry or the identity registry knows, each field null where its subgraph has nothing; null when no subgraph knows the ID.",
  })
  async machine(@Arg("machineId", () => String) machineId: string): Promise<VerifyMachine | null> {
    // An entity reference: the other subgraphs resolve their fields from the key alone.
    return (await this.deps.records.known(machineId)) ? Object.assign(new VerifyMachine(), { machineId }) : null;
  }

  @FieldResolver(() => MachineVerificationRecord, {
    nullable: true,
    description: "The verification record; null when the machine registry has no such ID (a 1.0-only machine).",
  })
  verification(@Root() machine: VerifyMachine): Promise<MachineVerificationRecord | null> {
    return this.deps.records.recordOrNull(machine.machineId);
  }
}
